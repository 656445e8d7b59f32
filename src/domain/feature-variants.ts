import type { FeatureVariant } from '../schemas/shared.js'
import { badData, fail, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { findTarget } from './strategies.js'
import type { ProjectState } from './project-state.js'
import { normaliseVariants } from './variants.js'
import type { ProjectWorld } from './world.js'

const sameVariants = (a: FeatureVariant[], b: FeatureVariant[]) => JSON.stringify(a) === JSON.stringify(b)

export const decideSetEnvironmentVariants = (
  state: ProjectState,
  featureName: string,
  environments: string[],
  variants: FeatureVariant[],
  world: ProjectWorld,
  meta: CommandMeta,
): Result<EventDraft[]> => {
  if (environments.length === 0) return fail(badData('No environments provided'))
  const normalised = normaliseVariants(variants)
  if (!normalised.ok) return normalised
  const events: EventDraft[] = []
  for (const environment of new Set(environments)) {
    const target = findTarget(state, featureName, environment, world)
    if (!target.ok) return target
    const current = target.value.featureEnvironment.variants
    if (sameVariants(current, normalised.value)) continue
    events.push(
      draft(meta, 'feature-environment-variants-updated', {
        project: state.settings.id,
        environment,
        featureName,
        data: { variants: normalised.value },
        preData: { variants: current },
      }),
    )
  }
  return ok(events)
}

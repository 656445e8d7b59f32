import type { FeatureVariant } from '../schemas/shared.js'
import { badData, fail, ok, type Result } from './errors.js'
import { draft, type EventDraft } from './events.js'
import { findActiveFeature } from './features.js'
import { findTarget } from './strategies.js'
import type { Environment } from './instance-state.js'
import type { Feature, ProjectState } from './project-state.js'
import { normaliseVariants } from './variants.js'
import type { WithMeta } from './world.js'

type SetVariants = { type: 'variants.set'; feature: string; environments: string[]; variants: FeatureVariant[] }
type SetLegacyVariants = { type: 'variants.setLegacy'; feature: string; variants: FeatureVariant[] }

export type VariantsCommand = SetVariants | SetLegacyVariants

const sameVariants = (a: FeatureVariant[], b: FeatureVariant[]) => JSON.stringify(a) === JSON.stringify(b)

export const decideSetEnvironmentVariants = (state: ProjectState, command: WithMeta<SetVariants>): Result<EventDraft[]> => {
  const { feature: featureName, environments, variants, world, meta } = command
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

// The legacy flag-level list (SEMANTICS 3.5, open point 3): the first production-type environment
// of the flag, by name; none → [].
export const legacyVariantsOf = (feature: Feature, environments: ReadonlyMap<string, Environment>): FeatureVariant[] => {
  const production = [...feature.environments.keys()].filter((name) => environments.get(name)?.type === 'production').sort()[0]
  return production === undefined ? [] : feature.environments.get(production)!.variants
}

// Legacy PUT/PATCH …/features/:f/variants: one list written to every environment of the flag, one
// feature-variants-updated event (Unleash's saveVariants).
export const decideSetLegacyVariants = (state: ProjectState, { feature: featureName, variants, world, meta }: WithMeta<SetLegacyVariants>): Result<EventDraft[]> => {
  const found = findActiveFeature(state, featureName, world)
  if (!found.ok) return found
  const normalised = normaliseVariants(variants)
  if (!normalised.ok) return normalised
  const isUnchanged = [...found.value.environments.values()].every((env) => sameVariants(env.variants, normalised.value))
  if (isUnchanged) return ok([])
  return ok([
    draft(meta, 'feature-variants-updated', {
      project: state.settings.id,
      featureName,
      data: { variants: normalised.value },
      preData: { variants: legacyVariantsOf(found.value, world.environments) },
    }),
  ])
}

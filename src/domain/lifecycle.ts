import type { CompleteFeature } from '../schemas/lifecycle.js'
import { ok, type Result } from './errors.js'
import { draft, type EventDraft } from './events.js'
import { findActiveFeature } from './features.js'
import { updateFeatureIn, type LifecycleStage, type ProjectState } from './project-state.js'
import type { WithMeta } from './world.js'

type CompleteFeatureCommand = { type: 'feature.complete'; feature: string; input: CompleteFeature }
type UncompleteFeature = { type: 'feature.uncomplete'; feature: string }

export type LifecycleCommand = CompleteFeatureCommand | UncompleteFeature

type Stage = LifecycleStage['stage']

// Current stage = the first present of these (SEMANTICS 11.6).
const precedence: Stage[] = ['archived', 'completed', 'live', 'pre-live', 'initial']
const order: Stage[] = ['initial', 'pre-live', 'live', 'completed', 'archived']

export const decideCompleteFeature = (state: ProjectState, { feature: featureName, input, world, meta }: WithMeta<CompleteFeatureCommand>): Result<EventDraft[]> => {
  const found = findActiveFeature(state, featureName, world)
  if (!found.ok) return found
  const current = found.value.lifecycle.find((l) => l.stage === 'completed')
  if (current && current.status === input.status && current.statusValue === input.statusValue) return ok([])
  const data = { status: input.status, ...(input.statusValue !== undefined ? { statusValue: input.statusValue } : {}), kept: input.status === 'kept' }
  return ok([draft(meta, 'feature-completed', { project: state.settings.id, featureName, data })])
}

export const decideUncompleteFeature = (state: ProjectState, { feature: featureName, world, meta }: WithMeta<UncompleteFeature>): Result<EventDraft[]> => {
  const found = findActiveFeature(state, featureName, world)
  if (!found.ok) return found
  if (!found.value.lifecycle.some((l) => l.stage === 'completed')) return ok([])
  return ok([draft(meta, 'feature-uncompleted', { project: state.settings.id, featureName })])
}

// A stage is entered once: completing again only changes the status, not enteredStageAt.
export const evolveLifecycle = (state: ProjectState, event: EventDraft): ProjectState => {
  const name = String(event.featureName)
  if (event.type === 'feature-completed') {
    return {
      ...state,
      features: updateFeatureIn(state.features, name, (f) => {
        const previous = f.lifecycle.find((l) => l.stage === 'completed')
        const completed: LifecycleStage = {
          stage: 'completed',
          enteredStageAt: previous?.enteredStageAt ?? event.createdAt,
          status: event.data.status,
          ...(event.data.statusValue !== undefined ? { statusValue: event.data.statusValue } : {}),
        }
        return { ...f, lifecycle: [...f.lifecycle.filter((l) => l.stage !== 'completed'), completed] }
      }),
    }
  }
  if (event.type === 'feature-uncompleted') {
    return { ...state, features: updateFeatureIn(state.features, name, (f) => ({ ...f, lifecycle: f.lifecycle.filter((l) => l.stage !== 'completed') })) }
  }
  return state
}

// Stages held in state (initial, completed, archived) plus the metric-driven ones (pre-live, live)
// kept outside the log; metric stages from before the flag's latest `initial` belong to an earlier
// life of the flag (revived, or deleted and created again) and are dropped. Oldest first.
export const mergeLifecycle = (stored: readonly LifecycleStage[], fromMetrics: readonly LifecycleStage[]): LifecycleStage[] => {
  const initial = stored.filter((l) => l.stage === 'initial').map((l) => l.enteredStageAt).sort().pop() ?? ''
  const merged = [...stored]
  for (const stage of fromMetrics) {
    if (stage.enteredStageAt < initial || merged.some((l) => l.stage === stage.stage)) continue
    merged.push(stage)
  }
  return merged.sort((a, b) => (a.enteredStageAt < b.enteredStageAt ? -1 : a.enteredStageAt > b.enteredStageAt ? 1 : order.indexOf(a.stage) - order.indexOf(b.stage)))
}

export const currentLifecycleStage = (stages: readonly LifecycleStage[], createdAt: string): LifecycleStage => {
  for (const stage of precedence) {
    const found = stages.find((l) => l.stage === stage)
    if (found) return found
  }
  return { stage: 'initial', enteredStageAt: createdAt }
}

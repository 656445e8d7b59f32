import { fail, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { withEntry } from './immutable.js'
import type { InstanceState } from './instance-state.js'

export interface FeatureType {
  id: string
  name: string
  description: string
  lifetimeDays: number | null
}

// Unleash's flag types and their expected lifetimes (SEMANTICS 11.2).
export const builtInFeatureTypes: FeatureType[] = [
  { id: 'release', name: 'Release', description: 'Release feature flags are used to release new features.', lifetimeDays: 40 },
  {
    id: 'experiment',
    name: 'Experiment',
    description: 'Experiment feature flags are used to test and verify multiple different versions of a feature.',
    lifetimeDays: 40,
  },
  { id: 'operational', name: 'Operational', description: 'Operational feature flags are used to control aspects of a rollout.', lifetimeDays: 7 },
  {
    id: 'kill-switch',
    name: 'Kill switch',
    description: 'Kill switch feature flags are used to quickly turn on or off critical functionality in your system.',
    lifetimeDays: null,
  },
  { id: 'permission', name: 'Permission', description: 'Permission feature flags are used to control permissions in your system.', lifetimeDays: null },
]

export type Lifetimes = Record<string, number | null>

export const lifetimesOf = (featureTypes: ReadonlyMap<string, FeatureType>): Lifetimes =>
  Object.fromEntries([...featureTypes.values()].map((t) => [t.id, t.lifetimeDays]))

export const decideUpdateFeatureTypeLifetime = (
  state: InstanceState,
  id: string,
  lifetimeDays: number | null,
  meta: CommandMeta,
): Result<EventDraft[]> => {
  const current = state.featureTypes.get(id)
  if (!current) return fail(notFound(`The feature type you tried to update ("${id}") does not exist.`))
  // Unleash: 0 means the type never goes stale.
  const next: FeatureType = { ...current, lifetimeDays: lifetimeDays === 0 ? null : lifetimeDays }
  if (next.lifetimeDays === current.lifetimeDays) return ok([])
  return ok([draft(meta, 'feature-type-updated', { data: next, preData: current })])
}

export const evolveFeatureTypes = (state: InstanceState, event: EventDraft): InstanceState =>
  event.type === 'feature-type-updated' ? { ...state, featureTypes: withEntry(state.featureTypes, event.data.id as string, event.data as FeatureType) } : state

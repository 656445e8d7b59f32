import { fail, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { withEntry } from './immutable.js'
import type { FeatureType } from './built-in-types.js'
import type { InstanceState } from './instance-state.js'

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
  event.type === 'feature-type-updated' ? { ...state, featureTypes: withEntry(state.featureTypes, event.data.id, event.data) } : state

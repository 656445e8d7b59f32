import { fail, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { withEntry } from './immutable.js'
import { builtInFeatureTypes, type FeatureType } from './built-in-types.js'
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

// An update changes a type's lifetime only: its texts stay the code's (an older event carries older texts).
export const evolveFeatureTypes = (state: InstanceState, event: EventDraft): InstanceState => {
  if (event.type !== 'feature-type-updated') return state
  const updated: FeatureType = event.data
  const current = state.featureTypes.get(updated.id)
  return { ...state, featureTypes: withEntry(state.featureTypes, updated.id, current ? { ...current, lifetimeDays: updated.lifetimeDays } : updated) }
}

// The built-in types as this version knows them, with the lifetimes a data directory holds: a directory
// written by an older version gets the types added since (sunset) and the texts as they are now.
export const withBuiltInFeatureTypes = (state: InstanceState): InstanceState => {
  const types = new Map(state.featureTypes)
  for (const builtIn of builtInFeatureTypes) types.set(builtIn.id, { ...builtIn, lifetimeDays: state.featureTypes.get(builtIn.id)?.lifetimeDays ?? builtIn.lifetimeDays })
  return { ...state, featureTypes: types }
}

import { ok, type Result } from './errors.js'
import { draft, type EventDraft } from './events.js'
import { findFeature } from './features.js'
import type { Lifetimes } from './feature-types.js'
import { updateEntry } from './immutable.js'
import type { Feature, ProjectState } from './project-state.js'
import type { WithMeta } from './world.js'

type SetStale = { type: 'feature.setStale'; names: string[]; stale: boolean }
type MarkPotentiallyStale = { type: 'feature.markPotentiallyStale'; lifetimes: Lifetimes }

export type StalenessCommand = SetStale | MarkPotentiallyStale

const dayMs = 24 * 60 * 60 * 1000

// SEMANTICS 11.2: not stale, not archived, the type has a lifetime, and it is over.
export const isPastLifetime = (feature: Feature, lifetimes: Lifetimes, nowMs: number): boolean => {
  const days = lifetimes[feature.type]
  if (days === null || days === undefined || feature.stale || feature.archived) return false
  return nowMs > Date.parse(feature.createdAt) + days * dayMs
}

// Flags the potentially-stale job would mark now (those already marked are left out).
export const potentiallyStaleCandidates = (state: ProjectState, lifetimes: Lifetimes, nowMs: number): Feature[] =>
  [...state.features.values()].filter((f) => !f.potentiallyStale && isPastLifetime(f, lifetimes, nowMs))

// When a flag not yet marked passes its type's lifetime (Infinity: never, as things are).
const dueOf = (feature: Feature | undefined, lifetimes: Lifetimes): number => {
  if (!feature || feature.potentiallyStale || feature.stale || feature.archived) return Infinity
  const days = lifetimes[feature.type]
  if (days === null || days === undefined) return Infinity
  const created = Date.parse(feature.createdAt)
  return Number.isNaN(created) ? Infinity : created + days * dayMs
}

// A time before which no flag of a project's flag map is due to be marked, per version of the map: the
// job asks every minute, and walking 50,000 flags took a pause of 50-300 ms each time. The time is
// exact when counted, and carried to the version an event about one flag makes from it (the earlier of
// the two, so it may come before the true one: then the next check walks the flags and counts it
// again). State stays immutable: this only remembers a function of each (immutable) map.
const dueTimes = new WeakMap<ReadonlyMap<string, Feature>, { lifetimes: string; lifetimesOf: Lifetimes; at: number }>()

export const potentiallyStaleNotBefore = (features: ReadonlyMap<string, Feature>, lifetimes: Lifetimes): number => {
  const key = JSON.stringify(lifetimes)
  const known = dueTimes.get(features)
  if (known && known.lifetimes === key) return known.at
  let at = Infinity
  for (const feature of features.values()) at = Math.min(at, dueOf(feature, lifetimes))
  dueTimes.set(features, { lifetimes: key, lifetimesOf: lifetimes, at })
  return at
}

// `after` was made from `before` by changing at most the flag `name`.
export const carryPotentiallyStaleTime = (before: ReadonlyMap<string, Feature>, after: ReadonlyMap<string, Feature>, name: string): void => {
  const known = dueTimes.get(before)
  if (!known || dueTimes.has(after)) return
  dueTimes.set(after, { ...known, at: Math.min(known.at, dueOf(after.get(name), known.lifetimesOf)) })
}

// Whether the job has flags of the project to mark now.
export const hasPotentiallyStaleCandidates = (state: ProjectState, lifetimes: Lifetimes, nowMs: number): boolean => {
  if (nowMs <= potentiallyStaleNotBefore(state.features, lifetimes)) return false
  if (potentiallyStaleCandidates(state, lifetimes, nowMs).length > 0) return true
  // None after all: the time is counted again, exactly.
  dueTimes.delete(state.features)
  potentiallyStaleNotBefore(state.features, lifetimes)
  return false
}

export const decideMarkPotentiallyStale = (state: ProjectState, { lifetimes, meta }: WithMeta<MarkPotentiallyStale>): Result<EventDraft[]> =>

  ok(
    potentiallyStaleCandidates(state, lifetimes, Date.parse(meta.now)).map((f) =>
      draft(meta, 'feature-potentially-stale-on', { project: state.settings.id, featureName: f.name }),
    ),
  )

// POST /api/admin/projects/:projectId/stale: events only for flags whose staleness changes.
export const decideSetStale = (state: ProjectState, { names, stale, world, meta }: WithMeta<SetStale>): Result<EventDraft[]> => {
  const events: EventDraft[] = []
  for (const name of new Set(names)) {
    const found = findFeature(state, name, world)
    if (!found.ok) return found
    if (found.value.stale === stale) continue
    events.push(draft(meta, stale ? 'feature-stale-on' : 'feature-stale-off', { project: state.settings.id, featureName: name }))
  }
  return ok(events)
}

export const evolvePotentiallyStale = (state: ProjectState, event: EventDraft): ProjectState =>
  event.type === 'feature-potentially-stale-on'
    ? { ...state, features: updateEntry(state.features, String(event.featureName), (f) => ({ ...f, potentiallyStale: true })) }
    : state

import { ok, type Result } from './errors.js'
import { forgetPotentiallyStaleTime, potentiallyStaleNotBefore, type StaleCounts } from './flag-facts.js'
import { draft, type EventDraft } from './events.js'
import { findFeature } from './features.js'
import type { Lifetimes } from './feature-types.js'
import { updateFeatureIn, type Feature, type ProjectState } from './project-state.js'
import type { WithMeta } from './world.js'

type SetStale = { type: 'feature.setStale'; names: string[]; stale: boolean }
type MarkPotentiallyStale = { type: 'feature.markPotentiallyStale'; lifetimes: Lifetimes }

export type StalenessCommand = SetStale | MarkPotentiallyStale

const dayMs = 24 * 60 * 60 * 1000

// SEMANTICS 10 health: 100 minus the shares of the active flags that are stale and potentially stale.
export const healthScore = (active: number, { stale, potentiallyStale }: StaleCounts): number =>
  active === 0 ? 100 : Math.round(100 - (100 * stale) / active - (100 * potentiallyStale) / active)

// SEMANTICS 11.2: not stale, not archived, the type has a lifetime, and it is over.
export const isPastLifetime = (feature: Feature, lifetimes: Lifetimes, nowMs: number): boolean => {
  const days = lifetimes[feature.type]
  if (days === null || days === undefined || feature.stale || feature.archived) return false
  return nowMs > Date.parse(feature.createdAt) + days * dayMs
}

// Flags the potentially-stale job would mark now (those already marked are left out).
export const potentiallyStaleCandidates = (state: ProjectState, lifetimes: Lifetimes, nowMs: number): Feature[] =>
  [...state.features.values()].filter((f) => !f.potentiallyStale && isPastLifetime(f, lifetimes, nowMs))

// Whether the job has flags of the project to mark now: O(1) until one may be due (flag-facts.ts).
export const hasPotentiallyStaleCandidates = (state: ProjectState, lifetimes: Lifetimes, nowMs: number): boolean => {
  if (nowMs <= potentiallyStaleNotBefore(state.features, lifetimes)) return false
  if (potentiallyStaleCandidates(state, lifetimes, nowMs).length > 0) return true
  // None after all: the time is counted again, exactly.
  forgetPotentiallyStaleTime(state.features)
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
    ? { ...state, features: updateFeatureIn(state.features, String(event.featureName), (f) => ({ ...f, potentiallyStale: true })) }
    : state

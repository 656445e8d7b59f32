import type { Lifetimes } from './feature-types.js'
import { PersistentMap } from './immutable.js'
import type { Feature } from './project-state.js'

// Facts about a project's flags that writes ask for and that walking every flag would answer: how many
// are active (the flag limits, at every creation) and marked stale (the project's health), which depend on which (adding a dependency,
// archiving, moving), and a time before which none is due to be marked potentially stale (the
// instance's check, every minute). They are kept per version of the project's flag map (state is
// immutable: this only remembers functions of each map), each counted when first asked, and carried
// by evolveProject to the version an event about one flag makes from it, so they stay O(1) per write:
// - the counts go up or down by one;
// - who depends on whom is shared while that flag's part in it is unchanged (a new flag has no
//   dependencies; changing its strategies or metadata leaves them), else counted again when asked;
// - the due time becomes the earlier of the two, which may come before the true one: a check that
//   then walks the flags and finds nothing due counts it again exactly.
const dayMs = 24 * 60 * 60 * 1000

type Dependents = ReadonlyMap<string, readonly string[]>

// Of the active flags: those marked stale, and those marked potentially stale and not stale (a project's
// health, asked for by every project answer and list of projects).
export interface StaleCounts {
  stale: number
  potentiallyStale: number
}

interface Facts {
  active?: number
  stale?: StaleCounts
  dependents?: Dependents
  // Per lifetimes (their JSON): the time and the lifetimes it was counted with.
  due?: { lifetimes: string; lifetimesOf: Lifetimes; at: number }
}

// A project's flags past 128 are a PersistentMap, which keeps the facts itself (no WeakMap entry per
// version for the GC to sweep: an import batch makes thousands of versions); smaller plain Maps are
// kept in a WeakMap.
const small = new WeakMap<ReadonlyMap<string, Feature>, Facts>()
const none: readonly string[] = []

const peek = (features: ReadonlyMap<string, Feature>): Facts | undefined =>
  features instanceof PersistentMap ? (features.memo as Facts | undefined) : small.get(features)

const keep = (features: ReadonlyMap<string, Feature>, facts: Facts): void => {
  if (features instanceof PersistentMap) features.memo = facts
  else small.set(features, facts)
}

const factsOf = (features: ReadonlyMap<string, Feature>): Facts => {
  let facts = peek(features)
  if (!facts) keep(features, (facts = {}))
  return facts
}

export const activeFeatureCount = (features: ReadonlyMap<string, Feature>): number => {
  const facts = factsOf(features)
  if (facts.active === undefined) {
    let count = 0
    for (const feature of features.values()) if (!feature.archived) count++
    facts.active = count
  }
  return facts.active
}

const staleMarkOf = (feature: Feature | undefined): keyof StaleCounts | undefined =>
  !feature || feature.archived ? undefined : feature.stale ? 'stale' : feature.potentiallyStale === true ? 'potentiallyStale' : undefined

export const staleCounts = (features: ReadonlyMap<string, Feature>): StaleCounts => {
  const facts = factsOf(features)
  if (facts.stale === undefined) {
    const counts = { stale: 0, potentiallyStale: 0 }
    for (const feature of features.values()) {
      const mark = staleMarkOf(feature)
      if (mark) counts[mark]++
    }
    facts.stale = counts
  }
  return facts.stale
}

const dependentsOf = (features: ReadonlyMap<string, Feature>): Dependents => {
  const facts = factsOf(features)
  if (!facts.dependents) {
    const built = new Map<string, string[]>()
    for (const feature of features.values()) {
      if (feature.archived) continue
      for (const { feature: parent } of feature.dependencies) {
        const children = built.get(parent)
        if (!children) built.set(parent, [feature.name])
        else if (children[children.length - 1] !== feature.name) children.push(feature.name)
      }
    }
    facts.dependents = built
  }
  return facts.dependents
}

// The active flags that depend on `name`, in the flag map's order.
export const childrenOf = (features: ReadonlyMap<string, Feature>, name: string): readonly string[] => dependentsOf(features).get(name) ?? none

// When a flag not yet marked passes its type's lifetime (Infinity: never, as things are).
const dueOf = (feature: Feature | undefined, lifetimes: Lifetimes): number => {
  if (!feature || feature.potentiallyStale || feature.stale || feature.archived) return Infinity
  const days = lifetimes[feature.type]
  if (days === null || days === undefined) return Infinity
  const created = Date.parse(feature.createdAt)
  return Number.isNaN(created) ? Infinity : created + days * dayMs
}

// No flag of the map is due to be marked potentially stale at or before this time.
export const potentiallyStaleNotBefore = (features: ReadonlyMap<string, Feature>, lifetimes: Lifetimes): number => {
  const facts = factsOf(features)
  const key = JSON.stringify(lifetimes)
  if (facts.due?.lifetimes !== key) {
    let at = Infinity
    for (const feature of features.values()) at = Math.min(at, dueOf(feature, lifetimes))
    facts.due = { lifetimes: key, lifetimesOf: lifetimes, at }
  }
  return facts.due.at
}

// Forgets the due time (a walk found it too early): the next question counts it.
export const forgetPotentiallyStaleTime = (features: ReadonlyMap<string, Feature>): void => {
  const facts = peek(features)
  if (facts) facts.due = undefined
}

const parentsOf = (feature: Feature | undefined): readonly unknown[] => (feature && !feature.archived ? feature.dependencies : none)

// `after` was made from `before` by changing at most the flag `name` (an event about that flag).
export const carryFlagFacts = (before: ReadonlyMap<string, Feature>, after: ReadonlyMap<string, Feature>, name: string): void => {
  const facts = peek(before)
  if (!facts || peek(after)) return
  const was = before.get(name)
  const is = after.get(name)
  const next: Facts = {}
  // Anything else changed (the sizes tell of another flag): no count is carried.
  const oneFlag = after.size - before.size === (is ? 1 : 0) - (was ? 1 : 0)
  if (facts.active !== undefined && oneFlag) {
    next.active = facts.active - (was && !was.archived ? 1 : 0) + (is && !is.archived ? 1 : 0)
  }
  if (facts.stale !== undefined && oneFlag) {
    const counts = { ...facts.stale }
    const markWas = staleMarkOf(was)
    const markIs = staleMarkOf(is)
    if (markWas) counts[markWas]--
    if (markIs) counts[markIs]++
    next.stale = counts
  }
  if (facts.dependents) {
    const parentsWere = parentsOf(was)
    const parentsAre = parentsOf(is)
    if (parentsWere === parentsAre || (parentsWere.length === 0 && parentsAre.length === 0)) next.dependents = facts.dependents
  }
  if (facts.due) {
    // A flag whose due time cannot have moved earlier (the same creation, type and marks) keeps it.
    const same =
      was !== undefined && is !== undefined && was.createdAt === is.createdAt && was.type === is.type && was.stale === is.stale && was.archived === is.archived && was.potentiallyStale === is.potentiallyStale
    const at = same ? facts.due.at : Math.min(facts.due.at, dueOf(is, facts.due.lifetimesOf))
    next.due = at === facts.due.at ? facts.due : { ...facts.due, at }
  }
  keep(after, next)
}

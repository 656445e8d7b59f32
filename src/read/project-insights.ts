import { projectDefaultStrategy } from '../domain/strategies.js'
import { isInternalRecord, type EventDraft } from '../domain/events.js'
import type { Lifetimes } from '../domain/feature-types.js'
import { isFavoriteOf } from '../domain/favorites.js'
import type { Feature, ProjectState } from '../domain/project-state.js'
import { healthScore, isPastLifetime } from '../domain/staleness.js'
import { PersistentMap, withEntry, withoutEntry } from '../domain/immutable.js'

const dayMs = 24 * 60 * 60 * 1000
const windowMs = 30 * dayMs

export interface Creator {
  // The user's id; Unleash's -42 for an admin token, -1337 for the system. Null: not known.
  userId: number | null
  name: string
}

// Never changed in place: a change replaces the flag's facts, so the map of them can be persistent
// (a snapshot holds it as it is, and writes only its chunks that changed).
interface FeatureFacts {
  readonly createdAtMs: number
  readonly archivedAtMs: number | null
  readonly type: string
  readonly firstProductionEnableMs: number | null
  // Who created the flag (creatorOf), in two fields rather than an object of its own: 1.9 MiB at 50,000
  // flags (issue 26).
  readonly createdByUserId: number | null
  readonly createdByName: string
}

interface ProjectFacts {
  // Both sorted ascending: one entry per event of the project, one per member added.
  activityMs: SortedTimes
  membersAddedMs: SortedTimes
  features: ReadonlyMap<string, FeatureFacts>
  // Events of the project per UTC day (YYYY-MM-DD) of the last year, for its status page.
  activityByDay: Map<string, number>
}

export interface ProjectStats {
  avgTimeToProdCurrentWindow: number
  createdCurrentWindow: number
  createdPastWindow: number
  archivedCurrentWindow: number
  archivedPastWindow: number
  projectActivityCurrentWindow: number
  projectActivityPastWindow: number
  projectMembersAddedCurrentWindow: number
}

const countByDay = (times: ArrayLike<number>): [string, number][] => {
  const days = new Map<string, number>()
  for (let i = 0; i < times.length; i++) days.set(dayOf(times[i]), (days.get(dayOf(times[i])) ?? 0) + 1)
  return [...days]
}

// Times in ascending order, with the dropped ones cut off at the front: events arrive in time order
// (almost always), so adding one is a push and dropping the old ones moves a start index; each was
// a splice of the whole list (at 50,000 flags a list of 250,000 times: 60 µs a write).
class SortedTimes {
  private values: number[]
  private start = 0

  constructor(values: ArrayLike<number> = []) {
    this.values = Array.from(values)
  }

  get length(): number {
    return this.values.length - this.start
  }

  toFloat64Array(): Float64Array {
    return Float64Array.from(this.values.slice(this.start))
  }

  insert(value: number): void {
    const list = this.values
    if (list.length === this.start || list[list.length - 1] <= value) {
      list.push(value)
      return
    }
    let lo = this.start
    let hi = list.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (list[mid] <= value) lo = mid + 1
      else hi = mid
    }
    list.splice(lo, 0, value)
  }

  dropBefore(value: number): void {
    const list = this.values
    while (this.start < list.length && list[this.start] < value) this.start++
    // The dropped front is given back once it is most of the list.
    if (this.start > 1024 && this.start * 2 > list.length) {
      this.values = list.slice(this.start)
      this.start = 0
    }
  }

  // How many times are >= value.
  countFrom(value: number): number {
    const list = this.values
    let lo = this.start
    let hi = list.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (list[mid] < value) lo = mid + 1
      else hi = mid
    }
    return list.length - lo
  }
}

const countBetween = (list: SortedTimes, from: number, to: number) => list.countFrom(from) - list.countFrom(to)

const emptyFacts = (): ProjectFacts => ({ activityMs: new SortedTimes(), membersAddedMs: new SortedTimes(), features: new Map(), activityByDay: new Map() })

const yearMs = 365 * dayMs
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10)

// What a snapshot keeps: a copy taken when it is made (the model goes on changing while the snapshot is written),
// with the time lists as Float64Array so a million events pack and unpack as one block each; the flags'
// facts are the immutable map itself (a list of pairs in older snapshots).
export interface ProjectInsightsSnapshot {
  environmentTypes: [string, string][]
  projects: [
    string,
    {
      activityMs: Float64Array
      membersAddedMs: Float64Array
      features: ReadonlyMap<string, FeatureFacts> | [string, FeatureFacts][]
      activityByDay?: [string, number][]
    },
  ][]
}

// Members an access event adds: user ids newly given a role in the project.
const membersAddedBy = (event: EventDraft): number => {
  switch (event.type) {
    case 'project-created':
      return typeof event.data.owner === 'number' ? 1 : 0
    case 'project-access-added':
      return new Set(event.data.roles.flatMap((r) => r.userIds)).size
    case 'project-user-added':
      return 1
    case 'project-access-user-roles-updated':
      return event.preData.roles.length === 0 ? 1 : 0
    default:
      return 0
  }
}

// The events whose case below reads the flag's facts.
const factsChanging = new Set(['feature-metadata-updated', 'feature-archived', 'feature-revived', 'feature-environment-enabled'])

// The figures of a project overview that need history (SEMANTICS 10 stats), folded from committed
// events as they arrive (and from the log once at start-up), so a request never scans the log.
export class ProjectInsights {
  private readonly environmentTypes = new Map<string, string>()
  private readonly projects = new Map<string, ProjectFacts>()

  constructor(private readonly clock: () => Date) {}

  snapshot(): ProjectInsightsSnapshot {
    return {
      environmentTypes: [...this.environmentTypes],
      projects: [...this.projects].map(([id, facts]) => [
        id,
        {
          activityMs: facts.activityMs.toFloat64Array(),
          membersAddedMs: facts.membersAddedMs.toFloat64Array(),
          features: facts.features,
          activityByDay: [...facts.activityByDay],
        },
      ]),
    }
  }

  // Replaces everything with a snapshot's content; the events after it are then apply()ed.
  restore(snapshot: ProjectInsightsSnapshot): void {
    this.environmentTypes.clear()
    this.projects.clear()
    for (const [name, type] of snapshot.environmentTypes) this.environmentTypes.set(name, type)
    for (const [id, facts] of snapshot.projects) {
      this.projects.set(id, {
        activityMs: new SortedTimes(facts.activityMs),
        membersAddedMs: new SortedTimes(facts.membersAddedMs),
        features: facts.features instanceof PersistentMap ? facts.features : PersistentMap.from(facts.features),
        // A snapshot from before days were kept: the last 60 days' activity is all it has.
        activityByDay: new Map(facts.activityByDay ?? countByDay(facts.activityMs)),
      })
    }
  }

  apply(events: Iterable<EventDraft>): void {
    const now = this.clock().getTime()
    for (const event of events) this.applyOne(event, now)
  }

  // The events of one commit share their time: its parse and its day are kept from one to the next.
  private lastCreatedAt = ''
  private lastAt = Number.NaN
  private lastDayNumber = Number.NaN
  private lastDay = ''

  private timeOf(createdAt: string): number {
    if (createdAt !== this.lastCreatedAt) {
      this.lastCreatedAt = createdAt
      this.lastAt = Date.parse(createdAt)
    }
    return this.lastAt
  }

  private dayOf(at: number): string {
    const day = Math.floor(at / dayMs)
    if (day !== this.lastDayNumber) {
      this.lastDayNumber = day
      this.lastDay = dayOf(at)
    }
    return this.lastDay
  }

  private facts(project: string): ProjectFacts {
    let facts = this.projects.get(project)
    if (!facts) this.projects.set(project, (facts = emptyFacts()))
    return facts
  }

  private applyOne(event: EventDraft, now: number): void {
    // Project activity counts the project's Unleash events; records that are not events are not activity.
    if (isInternalRecord(event.type)) return
    const at = this.timeOf(event.createdAt)
    if (event.type === 'environment-created' || event.type === 'environment-updated') {
      this.environmentTypes.set(event.data.name, event.data.type)
      return
    }
    if (!event.project) return
    if (event.type === 'project-deleted') {
      this.projects.delete(event.project)
      return
    }
    const facts = this.facts(event.project)
    // Only the last two windows are ever counted: older times are dropped, or the lists would keep one
    // number per event for ever.
    const kept = now - 2 * windowMs
    if (at >= now - yearMs) {
      const day = this.dayOf(at)
      facts.activityByDay.set(day, (facts.activityByDay.get(day) ?? 0) + 1)
    }
    if (at >= kept) {
      facts.activityMs.insert(at)
      for (let added = membersAddedBy(event); added > 0; added--) facts.membersAddedMs.insert(at)
    }
    facts.activityMs.dropBefore(kept)
    facts.membersAddedMs.dropBefore(kept)
    const name = event.featureName ?? ''
    // Looked up only by the events that change a flag's facts (most events of a flag do not).
    const feature = factsChanging.has(event.type) ? facts.features.get(name) : undefined
    switch (event.type) {
      case 'feature-created':
        facts.features = withEntry(facts.features, name, {
          createdAtMs: Date.parse(event.data?.createdAt ?? event.createdAt),
          archivedAtMs: null,
          type: event.data?.type ?? 'release',
          firstProductionEnableMs: null,
          createdByUserId: event.createdByUserId,
          createdByName: event.createdBy,
        })
        break
      case 'feature-metadata-updated':
        if (feature) facts.features = withEntry(facts.features, name, { ...feature, type: event.data.type })
        break
      case 'feature-archived':
        if (feature) facts.features = withEntry(facts.features, name, { ...feature, archivedAtMs: at })
        break
      case 'feature-revived':
        if (feature) facts.features = withEntry(facts.features, name, { ...feature, archivedAtMs: null })
        break
      case 'feature-deleted':
        facts.features = withoutEntry(facts.features, name)
        break
      case 'feature-environment-enabled':
        if (feature && feature.firstProductionEnableMs === null && this.environmentTypes.get(String(event.environment)) === 'production') {
          facts.features = withEntry(facts.features, name, { ...feature, firstProductionEnableMs: at })
        }
        break
      case 'feature-project-change': {
        const old = this.projects.get(event.data?.oldProject)
        const moved = old?.features.get(name)
        if (old && moved) {
          old.features = withoutEntry(old.features, name)
          facts.features = withEntry(facts.features, name, moved)
        }
        break
      }
    }
  }

  // Events of the project per day of the last year, oldest first (Unleash's activityCountByDate).
  activityByDay(projectId: string): { date: string; count: number }[] {
    const facts = this.projects.get(projectId)
    if (!facts) return []
    const first = dayOf(this.clock().getTime() - yearMs)
    for (const day of facts.activityByDay.keys()) if (day < first) facts.activityByDay.delete(day)
    return [...facts.activityByDay].sort(([a], [b]) => a.localeCompare(b)).map(([date, count]) => ({ date, count }))
  }

  // Who created the project's flag of that name, when known.
  creatorOf(projectId: string, featureName: string): Creator | undefined {
    const facts = this.projects.get(projectId)?.features.get(featureName)
    return facts && { userId: facts.createdByUserId, name: facts.createdByName }
  }

  stats(projectId: string): ProjectStats {
    const now = this.clock().getTime()
    const current = now - windowMs
    const past = now - 2 * windowMs
    const facts = this.projects.get(projectId) ?? emptyFacts()
    const features = [...facts.features.values()]
    // Unleash counts created flags among those not archived.
    const live = features.filter((f) => f.archivedAtMs === null)
    const archived = features.filter((f) => f.archivedAtMs !== null)
    return {
      avgTimeToProdCurrentWindow: averageTimeToProduction(features),
      createdCurrentWindow: live.filter((f) => f.createdAtMs >= current).length,
      createdPastWindow: live.filter((f) => f.createdAtMs >= past && f.createdAtMs < current).length,
      archivedCurrentWindow: archived.filter((f) => f.archivedAtMs! >= current).length,
      archivedPastWindow: archived.filter((f) => f.archivedAtMs! >= past && f.archivedAtMs! < current).length,
      projectActivityCurrentWindow: facts.activityMs.countFrom(current),
      projectActivityPastWindow: countBetween(facts.activityMs, past, current),
      projectMembersAddedCurrentWindow: facts.membersAddedMs.countFrom(current),
    }
  }
}

// SEMANTICS 10: mean whole days (date-fns differenceInDays) from creation to the first enable in a
// production-type environment, over the project's release flags; one decimal, 0.1 when that rounds
// to 0 with data, 0 without.
const averageTimeToProduction = (features: FeatureFacts[]): number => {
  const days = features
    .filter((f) => f.type === 'release' && f.firstProductionEnableMs !== null)
    .map((f) => Math.trunc((f.firstProductionEnableMs! - f.createdAtMs) / dayMs))
  if (days.length === 0) return 0
  const mean = Number((days.reduce((a, b) => a + b, 0) / days.length).toFixed(1))
  return mean === 0 ? 0.1 : mean
}

// SEMANTICS 10 health: over active flags, 100 minus the stale and the potentially stale shares.
export const projectHealthAt = (project: ProjectState, lifetimes: Lifetimes, now: Date): number => {
  const nowMs = now.getTime()
  let active = 0
  const counts = { stale: 0, potentiallyStale: 0 }
  for (const f of project.features.values()) {
    if (f.archived) continue
    active++
    if (f.stale) counts.stale++
    else if (f.potentiallyStale === true || isPastLifetime(f, lifetimes, nowMs)) counts.potentiallyStale++
  }
  return healthScore(active, counts)
}

export const featureTypeCounts = (project: ProjectState) => {
  const counts = new Map<string, number>()
  for (const f of project.features.values()) if (!f.archived) counts.set(f.type, (counts.get(f.type) ?? 0) + 1)
  return [...counts].sort(([a], [b]) => a.localeCompare(b)).map(([type, count]) => ({ type, count }))
}

// Distinct users holding a role in the project, directly or through a group.
export const projectMemberCount = (project: ProjectState, groupMembers: (groupId: number) => number[] = () => []): number => {
  const users = new Set<number>(project.access?.users.keys() ?? [])
  for (const groupId of project.access?.groups.keys() ?? []) for (const userId of groupMembers(groupId)) users.add(userId)
  return users.size
}

export interface OverviewContext {
  stats: ProjectStats
  lifetimes: Lifetimes
  now: Date
  viewer: string | undefined
  members: number
  // Whether an SDK reported evaluating the flag, in any environment.
  wasSeen: (feature: string) => boolean
}

export type OnboardingStatus = { status: 'onboarding-started' | 'onboarded' } | { status: 'first-flag-created'; feature: string }

// How far a project is in Unleash's onboarding (its onboarding read model): onboarded once an SDK
// reported one of its flags; before that, its first active flag, or nothing yet.
export const onboardingStatus = (project: ProjectState, wasSeen: (feature: string) => boolean): OnboardingStatus => {
  let first: Feature | undefined
  for (const f of project.features.values()) {
    if (wasSeen(f.name)) return { status: 'onboarded' }
    // The earliest created (ISO times of one format: their order is their text's); the first met of equal ones.
    if (!f.archived && (first === undefined || f.createdAt < first.createdAt)) first = f
  }
  return first ? { status: 'first-flag-created', feature: first.name } : { status: 'onboarding-started' }
}

// INTERFACE 2.12.
export const projectOverviewView = (project: ProjectState, ctx: OverviewContext) => {
  const health = projectHealthAt(project, ctx.lifetimes, ctx.now)
  const settings = project.settings
  return {
    stats: ctx.stats,
    version: 1,
    name: settings.name,
    description: settings.description,
    defaultStickiness: settings.defaultStickiness,
    mode: settings.mode,
    featureLimit: settings.featureLimit,
    featureNaming: settings.featureNaming,
    members: ctx.members,
    health,
    technicalDebt: 100 - health,
    environments: [...project.environments.values()].map((e) => ({
      environment: e.environment,
      changeRequestsEnabled: e.changeRequestsEnabled,
      defaultStrategy: projectDefaultStrategy(project, e.environment),
    })),
    featureTypeCounts: featureTypeCounts(project),
    updatedAt: settings.updatedAt,
    createdAt: settings.createdAt,
    favorite: isFavoriteOf(project.favoritedBy, ctx.viewer),
    onboardingStatus: onboardingStatus(project, ctx.wasSeen),
    // Unleash's project link templates are an enterprise feature this server has not got.
    linkTemplates: [],
  }
}

import { projectDefaultStrategy } from '../domain/strategies.js'
import { isInternalRecord, type EventDraft } from '../domain/events.js'
import type { Lifetimes } from '../domain/feature-types.js'
import { isFavoriteOf } from '../domain/favorites.js'
import type { ProjectState } from '../domain/project-state.js'
import { isPastLifetime } from '../domain/staleness.js'
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
  // Who created the flag (absent in snapshots written before it was kept).
  readonly createdBy?: Creator
}

interface ProjectFacts {
  // Both sorted ascending: one entry per event of the project, one per member added.
  activityMs: number[]
  membersAddedMs: number[]
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

const insertSorted = (list: number[], value: number) => {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (list[mid] <= value) lo = mid + 1
    else hi = mid
  }
  list.splice(lo, 0, value)
}

const dropBefore = (list: number[], value: number) => {
  let stale = 0
  while (stale < list.length && list[stale] < value) stale++
  if (stale > 0) list.splice(0, stale)
}

// How many entries of a sorted list are >= value.
const countFrom = (list: number[], value: number) => {
  let lo = 0
  let hi = list.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (list[mid] < value) lo = mid + 1
    else hi = mid
  }
  return list.length - lo
}

const countBetween = (list: number[], from: number, to: number) => countFrom(list, from) - countFrom(list, to)

const emptyFacts = (): ProjectFacts => ({ activityMs: [], membersAddedMs: [], features: new Map(), activityByDay: new Map() })

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
      return typeof event.data?.owner === 'number' ? 1 : 0
    case 'project-access-added': {
      const roles = (event.data?.roles ?? []) as { userIds?: number[] }[]
      return new Set(roles.flatMap((r) => r.userIds ?? [])).size
    }
    case 'project-user-added':
      return 1
    case 'project-access-user-roles-updated':
      return (event.preData?.roles ?? []).length === 0 ? 1 : 0
    default:
      return 0
  }
}

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
          activityMs: Float64Array.from(facts.activityMs),
          membersAddedMs: Float64Array.from(facts.membersAddedMs),
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
        activityMs: Array.from(facts.activityMs),
        membersAddedMs: Array.from(facts.membersAddedMs),
        features: facts.features instanceof PersistentMap ? facts.features : PersistentMap.from(facts.features),
        // A snapshot from before days were kept: the last 60 days' activity is all it has.
        activityByDay: new Map(facts.activityByDay ?? countByDay(facts.activityMs)),
      })
    }
  }

  apply(events: Iterable<EventDraft>): void {
    for (const event of events) this.applyOne(event)
  }

  private facts(project: string): ProjectFacts {
    let facts = this.projects.get(project)
    if (!facts) this.projects.set(project, (facts = emptyFacts()))
    return facts
  }

  private applyOne(event: EventDraft): void {
    // Project activity counts the project's Unleash events; records that are not events are not activity.
    if (isInternalRecord(event.type)) return
    const at = Date.parse(event.createdAt)
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
    const kept = this.clock().getTime() - 2 * windowMs
    if (at >= this.clock().getTime() - yearMs) {
      const day = dayOf(at)
      facts.activityByDay.set(day, (facts.activityByDay.get(day) ?? 0) + 1)
    }
    if (at >= kept) {
      insertSorted(facts.activityMs, at)
      for (let added = membersAddedBy(event); added > 0; added--) insertSorted(facts.membersAddedMs, at)
    }
    dropBefore(facts.activityMs, kept)
    dropBefore(facts.membersAddedMs, kept)
    const name = event.featureName ?? ''
    const feature = facts.features.get(name)
    switch (event.type) {
      case 'feature-created':
        facts.features = withEntry(facts.features, name, {
          createdAtMs: Date.parse(event.data?.createdAt ?? event.createdAt),
          archivedAtMs: null,
          type: event.data?.type ?? 'release',
          firstProductionEnableMs: null,
          createdBy: { userId: event.createdByUserId, name: event.createdBy },
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
    return this.projects.get(projectId)?.features.get(featureName)?.createdBy
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
      projectActivityCurrentWindow: countFrom(facts.activityMs, current),
      projectActivityPastWindow: countBetween(facts.activityMs, past, current),
      projectMembersAddedCurrentWindow: countFrom(facts.membersAddedMs, current),
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
  const active = [...project.features.values()].filter((f) => !f.archived)
  if (active.length === 0) return 100
  const nowMs = now.getTime()
  const stale = active.filter((f) => f.stale).length
  const potentiallyStale = active.filter((f) => !f.stale && (f.potentiallyStale === true || isPastLifetime(f, lifetimes, nowMs))).length
  return Math.round(100 - (100 * stale) / active.length - (100 * potentiallyStale) / active.length)
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
  const features = [...project.features.values()]
  if (features.some((f) => wasSeen(f.name))) return { status: 'onboarded' }
  const first = features.filter((f) => !f.archived).sort((a, b) => a.createdAt.localeCompare(b.createdAt))[0]
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

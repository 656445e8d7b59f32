import type { Lifetimes } from '../domain/feature-types.js'
import type { Feature, LifecycleStage, ProjectState } from '../domain/project-state.js'
import { isPastLifetime } from '../domain/staleness.js'
import { projectHealthAt } from './project-insights.js'

const dayMs = 24 * 60 * 60 * 1000

type Stage = 'initial' | 'pre-live' | 'live' | 'completed'

export const isStaleOrPotentiallyStale = (feature: Feature, lifetimes: Lifetimes, nowMs: number) =>
  feature.stale || feature.potentiallyStale === true || isPastLifetime(feature, lifetimes, nowMs)

// Unleash's project lifecycle summary: how many active flags are in each stage now (the latest stage
// each entered; a flag revived after archiving counts as initial), the mean whole days flags spent in
// each stage before the next one (archived flags' history included), and the archived flags.
export const lifecycleSummary = (project: ProjectState, lifecycleOf: (feature: Feature) => LifecycleStage[], now: Date) => {
  const current: Record<Stage, number> = { initial: 0, 'pre-live': 0, live: 0, completed: 0 }
  const durations: Record<Stage, number[]> = { initial: [], 'pre-live': [], live: [], completed: [] }
  let archived = 0
  let archivedLast30Days = 0
  for (const feature of project.features.values()) {
    const entered = lifecycleOf(feature)
    // Each time parsed once (they were parsed once per stage again: most of the walk at 50,000 flags).
    const times = entered.map((s) => Date.parse(s.enteredStageAt))
    entered.forEach((stage, i) => {
      if (stage.stage === 'archived') return
      const at = times[i]
      let next = Number.POSITIVE_INFINITY
      for (const t of times) if (t > at && t < next) next = t
      if (next !== Number.POSITIVE_INFINITY) durations[stage.stage].push((next - at) / dayMs)
    })
    if (feature.archived) {
      archived++
      if (feature.archivedAt && now.getTime() - Date.parse(feature.archivedAt) <= 30 * dayMs) archivedLast30Days++
      continue
    }
    const latest = entered[entered.length - 1]?.stage ?? 'initial'
    current[latest === 'archived' ? 'initial' : latest]++
  }
  const average = (days: number[]) => (days.length === 0 ? null : Math.round(days.reduce((a, b) => a + b, 0) / days.length))
  const summary = (stage: Stage) => ({ averageDays: average(durations[stage]), currentFlags: current[stage] })
  return {
    initial: summary('initial'),
    preLive: summary('pre-live'),
    live: summary('live'),
    completed: summary('completed'),
    archived: { currentFlags: archived, last30Days: archivedLast30Days },
  }
}

export interface ProjectStatusContext {
  lifetimes: Lifetimes
  now: Date
  members: number
  // API tokens made for this project (not those of every project), and the project's own segments.
  apiTokens: number
  segments: number
  activityByDay: { date: string; count: number }[]
  lifecycleOf: (feature: Feature) => LifecycleStage[]
}

// GET /api/admin/projects/:id/status, the project page's status panel.
export const projectStatusView = (project: ProjectState, ctx: ProjectStatusContext) => {
  const health = projectHealthAt(project, ctx.lifetimes, ctx.now)
  const nowMs = ctx.now.getTime()
  const active = [...project.features.values()].filter((f) => !f.archived)
  return {
    resources: { members: ctx.members, apiTokens: ctx.apiTokens, segments: ctx.segments },
    activityCountByDate: ctx.activityByDay,
    health: { current: health },
    technicalDebt: { current: 100 - health },
    lifecycleSummary: lifecycleSummary(project, ctx.lifecycleOf, ctx.now),
    staleFlags: { total: active.filter((f) => isStaleOrPotentiallyStale(f, ctx.lifetimes, nowMs)).length },
  }
}

import type { EventRecord } from '../domain/events.js'
import { isFavoriteOf } from '../domain/favorites.js'
import type { Lifetimes } from '../domain/feature-types.js'
import type { PeopleState } from '../domain/people-state.js'
import type { ProjectState } from '../domain/project-state.js'
import { adminsView, imageUrlOf, projectOwners, projectRolesOf, projectsOfUser } from './people-views.js'
import { onboardingStatus, projectHealthAt, type Creator } from './project-insights.js'
import { isStaleOrPotentiallyStale } from './project-status.js'

// Unleash's personal dashboard (the page after sign-in): the signed-in user's flags and projects, and
// for one project its recent events, owners, the user's roles and its flags' health.

export interface DashboardContext {
  people: PeopleState
  projects: ReadonlyMap<string, ProjectState>
  userId: number
  lifetimes: Lifetimes
  now: Date
  creatorOf: (project: string, feature: string) => Creator | undefined
  memberCount: (project: ProjectState) => number
}

const flagLimit = 100

export const personalDashboardView = (ctx: DashboardContext) => {
  const viewer = `user:${ctx.userId}`
  const mine = [...ctx.projects.values()].flatMap((project) =>
    [...project.features.values()].filter(
      (f) => !f.archived && (isFavoriteOf(f.favoritedBy, viewer) || ctx.creatorOf(project.settings.id, f.name)?.userId === ctx.userId),
    ),
  )
  const projects = [
    ...new Set([...projectsOfUser(ctx.people, ctx.projects.values(), ctx.userId), ...[...ctx.projects.values()].filter((p) => isFavoriteOf(p.favoritedBy, viewer))]),
  ].sort((a, b) => a.settings.name.localeCompare(b.settings.name))
  const owners = new Map<string, ReturnType<typeof projectOwners>[number]>()
  for (const project of ctx.projects.values()) {
    for (const owner of projectOwners(ctx.people, project)) if (owner.ownerType === 'user') owners.set(owner.email || owner.name, owner)
  }
  return {
    flags: mine
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt))
      .slice(0, flagLimit)
      .map((f) => ({ name: f.name, type: f.type, project: f.project })),
    projects: projects.map((project) => {
      const health = projectHealthAt(project, ctx.lifetimes, ctx.now)
      return {
        id: project.settings.id,
        name: project.settings.name,
        health,
        technicalDebt: 100 - health,
        memberCount: ctx.memberCount(project),
        featureCount: [...project.features.values()].filter((f) => !f.archived).length,
      }
    }),
    projectOwners: [...owners.values()],
    admins: adminsView(ctx.people),
  }
}

// One line of markdown per event, as Unleash's dashboard shows them, with links into the UI.
const verbs: Record<string, string> = {
  'feature-created': 'created',
  'feature-updated': 'updated',
  'feature-metadata-updated': 'updated',
  'feature-type-updated': 'changed the type of',
  'feature-archived': 'archived',
  'feature-revived': 'revived',
  'feature-deleted': 'deleted',
  'feature-environment-enabled': 'enabled',
  'feature-environment-disabled': 'disabled',
  'feature-strategy-add': 'added a strategy to',
  'feature-strategy-update': 'updated a strategy of',
  'feature-strategy-remove': 'removed a strategy from',
  'strategy-order-changed': 'reordered the strategies of',
  'feature-stale-on': 'marked as stale',
  'feature-stale-off': 'marked as not stale',
  'feature-tagged': 'tagged',
  'feature-untagged': 'untagged',
  'feature-variants-updated': 'updated the variants of',
  'feature-environment-variants-updated': 'updated the variants of',
  'feature-dependency-added': 'added a dependency to',
  'feature-dependency-removed': 'removed a dependency from',
  'feature-favorited': 'favorited',
  'feature-unfavorited': 'unfavorited',
  'feature-completed': 'completed',
  'feature-uncompleted': 'reopened',
}

export const eventSummary = (event: EventRecord, publicUrl: string): string => {
  const project = event.project ? ` in project **[${event.project}](${publicUrl}/projects/${encodeURIComponent(event.project)})**` : ''
  const environment = event.environment ? ` for the **${event.environment}** environment` : ''
  const verb = verbs[event.type]
  if (verb && event.featureName && event.project) {
    const link = `${publicUrl}/projects/${encodeURIComponent(event.project)}/features/${encodeURIComponent(event.featureName)}`
    return `**${event.createdBy}** ${verb} **[${event.featureName}](${link})**${environment}${project}`
  }
  const subject = event.featureName ? ` for **${event.featureName}**` : ''
  return `**${event.createdBy}** triggered **${event.type}**${subject}${environment}${project}`
}

export interface ProjectDetailsContext extends DashboardContext {
  latestEvents: EventRecord[]
  publicUrl: string
  wasSeen: (feature: string) => boolean
}

// Health trends are not kept here (Unleash's flag_trends): the windowed averages are null, as Unleash
// answers before it has four weeks of them.
export const personalProjectDetailsView = (project: ProjectState, ctx: ProjectDetailsContext) => {
  const nowMs = ctx.now.getTime()
  const active = [...project.features.values()].filter((f) => !f.archived)
  const stale = active.filter((f) => f.stale).length
  const potentiallyStale = active.filter((f) => !f.stale && isStaleOrPotentiallyStale(f, ctx.lifetimes, nowMs)).length
  const health = projectHealthAt(project, ctx.lifetimes, ctx.now)
  return {
    latestEvents: ctx.latestEvents.map((event) => ({
      id: event.id,
      summary: eventSummary(event, ctx.publicUrl),
      createdBy: event.createdBy,
      createdByImageUrl: imageUrlOf({ id: null, username: event.createdBy }),
      createdAt: event.createdAt,
    })),
    onboardingStatus: onboardingStatus(project, ctx.wasSeen),
    owners: projectOwners(ctx.people, project),
    roles: projectRolesOf(ctx.people, project, ctx.userId).flatMap((id) => {
      const role = ctx.people.roles.get(id)
      return role && (role.type === 'project' || role.type === 'custom') ? [{ id: role.id, name: role.name, type: role.type }] : []
    }),
    insights: {
      avgHealthCurrentWindow: null,
      avgHealthPastWindow: null,
      totalFlags: active.length,
      potentiallyStaleFlags: potentiallyStale,
      staleFlags: stale,
      activeFlags: active.length - stale - potentiallyStale,
      technicalDebt: 100 - health,
      health,
    },
  }
}

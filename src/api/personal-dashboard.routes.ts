import type { EventRecord } from '../domain/events.js'
import { lifetimesOf } from '../domain/feature-types.js'
import type { Request, Route } from '../http/types.js'
import { personalDashboardView, personalProjectDetailsView, type DashboardContext } from '../read/personal-dashboard.js'
import { projectMemberCount, type ProjectInsights } from '../read/project-insights.js'
import { personalDashboardResponse, personalProjectDetailsResponse } from '../schemas/responses.js'
import { json, type ApiDeps } from './deps.js'
import { committedProject, publicUrlFor, seenBySdks } from './lookups.js'
import { callerUserId } from './people-context.js'

const latestEventCount = 10

// The page Unleash's UI opens after sign-in. It is a user's own: an API token has none (400).
export const personalDashboardRoutes = (deps: ApiDeps, insights: ProjectInsights): Route[] => {
  const context = (req: Request): DashboardContext => {
    const instance = deps.reads.instance
    const groupMembers = (id: number) => instance.people.groups.get(id)?.users.map((m) => m.userId) ?? []
    return {
      people: instance.people,
      projects: deps.reads.projects,
      userId: callerUserId(req),
      lifetimes: lifetimesOf(instance.featureTypes),
      now: deps.clock(),
      creatorOf: (project, feature) => insights.creatorOf(project, feature),
      memberCount: (project) => projectMemberCount(project, groupMembers),
    }
  }
  return [
    {
      method: 'GET',
      path: '/api/admin/personal-dashboard',
      access: 'admin',
      docs: { summary: "The signed-in user's flags and projects", responses: { 200: personalDashboardResponse } },
      handler: (req) => json(personalDashboardView(context(req))),
    },
    {
      method: 'GET',
      path: '/api/admin/personal-dashboard/:projectId',
      access: 'admin',
      docs: { summary: "A project's recent events, owners and health, and the signed-in user's roles in it", responses: { 200: personalProjectDetailsResponse } },
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        const latestEvents = deps.log
          .idsFor(`project:${project.settings.id}`, { reverse: true, limit: latestEventCount })
          .map((id) => deps.log.get(id) as EventRecord)
        return json(personalProjectDetailsView(project, { ...context(req), latestEvents, publicUrl: publicUrlFor(deps, req), wasSeen: seenBySdks(deps) }))
      },
    },
  ]
}

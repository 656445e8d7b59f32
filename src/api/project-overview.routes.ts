import { lifetimesOf } from '../domain/feature-types.js'
import type { Route } from '../http/types.js'
import { featureLifecycle } from '../read/admin-views.js'
import { displayName } from '../read/people-views.js'
import { projectMemberCount, projectOverviewView, type ProjectInsights } from '../read/project-insights.js'
import { projectStatusView } from '../read/project-status.js'
import { flagCreatorsResponse, projectStatusResponse } from '../schemas/responses.js'
import { json, type ApiDeps } from './deps.js'
import { committedProject, seenBySdks } from './lookups.js'
import { viewerKey } from './viewer.js'

export const projectOverviewRoutes = (deps: ApiDeps, insights: ProjectInsights): Route[] => {
  const groupMembers = (id: number) => deps.reads.instance.people?.groups.get(id)?.users.map((m) => m.userId) ?? []
  return [
    {
      method: 'GET',
      path: '/api/admin/projects/:projectId/overview',
      access: 'admin',
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        return json(
          projectOverviewView(project, {
            stats: insights.stats(project.settings.id),
            lifetimes: lifetimesOf(deps.reads.instance.featureTypes),
            now: deps.clock(),
            viewer: viewerKey(req),
            members: projectMemberCount(project, groupMembers),
            wasSeen: seenBySdks(deps),
          }),
        )
      },
    },
    {
      method: 'GET',
      path: '/api/admin/projects/:projectId/status',
      access: 'admin',
      docs: { summary: "The project's health, activity, lifecycle and resources", responses: { 200: projectStatusResponse } },
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        const instance = deps.reads.instance
        const id = project.settings.id
        return json(
          projectStatusView(project, {
            lifetimes: lifetimesOf(instance.featureTypes),
            now: deps.clock(),
            members: projectMemberCount(project, groupMembers),
            apiTokens: [...instance.apiTokens.values()].filter((t) => t.projects.includes(id)).length,
            segments: [...instance.segments.values()].filter((s) => s.project === id).length,
            activityByDay: insights.activityByDay(id),
            lifecycleOf: (feature) => featureLifecycle(feature, { metricStages: (name) => deps.lifecycleStages.of(name) }),
          }),
        )
      },
    },
    {
      // Who created the project's active flags: its flag table filters by them. A user by their current
      // name; an admin token or the system by the name its events carry.
      method: 'GET',
      path: '/api/admin/projects/:projectId/flag-creators',
      access: 'admin',
      docs: { summary: "The creators of the project's flags", responses: { 200: flagCreatorsResponse } },
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        const users = deps.reads.instance.people.users
        const creators = new Map<number, string>()
        for (const feature of project.features.values()) {
          const creator = feature.archived ? undefined : insights.creatorOf(project.settings.id, feature.name)
          if (!creator || creator.userId === null || creators.has(creator.userId)) continue
          const user = users.get(creator.userId)
          creators.set(creator.userId, user ? displayName(user) : creator.name)
        }
        return json([...creators].map(([id, name]) => ({ id, name })))
      },
    },
  ]
}

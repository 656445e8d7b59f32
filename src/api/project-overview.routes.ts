import { lifetimesOf } from '../domain/feature-types.js'
import type { Route } from '../http/types.js'
import { projectMemberCount, projectOverviewView, type ProjectInsights } from '../read/project-insights.js'
import { json, type ApiDeps } from './deps.js'
import { committedProject } from './lookups.js'
import { viewerKey } from './viewer.js'

export const projectOverviewRoutes = (deps: ApiDeps, insights: ProjectInsights): Route[] => [
  {
    method: 'GET',
    path: '/api/admin/projects/:projectId/overview',
    access: 'admin',
    handler: (req) => {
      const project = committedProject(deps, req.params.projectId)
      const instance = deps.registry.committedInstance
      const groupMembers = (id: number) => instance.people?.groups.get(id)?.users.map((m) => m.userId) ?? []
      return json(
        projectOverviewView(project, {
          stats: insights.stats(project.settings.id),
          lifetimes: lifetimesOf(instance.featureTypes),
          now: deps.clock(),
          viewer: viewerKey(req),
          members: projectMemberCount(project, groupMembers),
        }),
      )
    },
  },
]

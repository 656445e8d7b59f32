import { nameExists } from '../domain/errors.js'
import { slugify } from '../domain/projects.js'
import type { Route } from '../http/types.js'
import { featureView, projectSummaryView } from '../read/admin-views.js'
import { createProjectSchema, projectEnvironmentSchema, updateProjectSchema } from '../schemas/projects.js'
import { createFeatureStrategySchema } from '../schemas/shared.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedProject, viewContext } from './lookups.js'
import { parse } from './parse.js'
import { isFavoriteOf } from '../domain/favorites.js'
import { viewerKey } from './viewer.js'
import { activeFeatures, slicedJsonList } from './sliced-json.js'
import { projectResponse, projectWithFeaturesResponse, projectsResponse } from '../schemas/responses.js'

const freeProjectId = (deps: ApiDeps, name: string): string => {
  const base = slugify(name)
  if (!deps.reads.projects.has(base)) return base
  for (let n = 1; ; n++) if (!deps.reads.projects.has(`${base}-${n}`)) return `${base}-${n}`
}

export const projectRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/admin/projects',
    access: 'admin',
    docs: { responses: { 200: projectsResponse } },
    handler: (req) => {
      const projects = [...deps.reads.projects.values()].map((p) => ({ ...projectSummaryView(p), favorite: isFavoriteOf(p.favoritedBy, viewerKey(req)) }))
      projects.sort((a, b) => a.name.localeCompare(b.name))
      return json({ version: 1, projects })
    },
  },
  {
    method: 'POST',
    path: '/api/admin/projects',
    access: 'admin',
    permission: 'CREATE_PROJECT',
    body: true,
    docs: { body: createProjectSchema, responses: { 201: projectResponse } },
    handler: async (req) => {
      const input = parse(createProjectSchema, req.body)
      const id = input.id ?? freeProjectId(deps, input.name)
      if (deps.reads.projects.get(id)) throw nameExists('A project with this id already exists.')
      await deps.commands.toProject(id, { type: 'project.create', id, input, meta: metaOf(deps, req) })
      return json(projectSummaryView(committedProject(deps, id)), 201)
    },
  },
  {
    method: 'GET',
    path: '/api/admin/projects/:projectId',
    access: 'admin',
    docs: { responses: { 200: projectWithFeaturesResponse } },
    handler: (req) => {
      const project = committedProject(deps, req.params.projectId)
      const ctx = viewContext(deps, project, req)
      return slicedJsonList({
        before: { ...projectSummaryView(project), favorite: isFavoriteOf(project.favoritedBy, viewerKey(req)), version: 1 },
        key: 'features',
        items: activeFeatures(project),
        view: (f) => featureView(f, ctx),
        after: { members: 0 },
      })
    },
  },
  {
    method: 'PUT',
    path: '/api/admin/projects/:projectId',
    access: 'admin',
    permission: 'UPDATE_PROJECT',
    body: true,
    docs: { body: updateProjectSchema, responses: { 200: projectResponse } },
    handler: async (req) => {
      const input = parse(updateProjectSchema, req.body)
      await deps.commands.toProject(req.params.projectId, { type: 'project.update', input, meta: metaOf(deps, req) })
      return json(projectSummaryView(committedProject(deps, req.params.projectId)))
    },
  },
  {
    method: 'DELETE',
    path: '/api/admin/projects/:projectId',
    access: 'admin',
    permission: 'DELETE_PROJECT',
    docs: { responses: { 200: null } },
    handler: async (req) => {
      await deps.commands.toProject(req.params.projectId, { type: 'project.delete', meta: metaOf(deps, req) })
      return empty(200)
    },
  },
  {
    method: 'POST',
    path: '/api/admin/projects/:projectId/environments',
    access: 'admin',
    permission: 'UPDATE_PROJECT',
    body: true,
    docs: { body: projectEnvironmentSchema },
    handler: async (req) => {
      const input = parse(projectEnvironmentSchema, req.body)
      const defaultStrategy = input.defaultStrategy ?? null
      await deps.commands.toProject(req.params.projectId, { type: 'projectEnvironment.add', input, defaultStrategy, meta: metaOf(deps, req) })
      return empty(200)
    },
  },
  {
    method: 'DELETE',
    path: '/api/admin/projects/:projectId/environments/:environment',
    access: 'admin',
    permission: 'UPDATE_PROJECT',
    handler: async (req) => {
      await deps.commands.toProject(req.params.projectId, {
        type: 'projectEnvironment.remove',
        environment: req.params.environment,
        meta: metaOf(deps, req),
      })
      return empty(200)
    },
  },
  {
    method: 'POST',
    path: '/api/admin/projects/:projectId/environments/:environment/default-strategy',
    access: 'admin',
    permission: 'UPDATE_PROJECT',
    body: true,
    docs: { body: createFeatureStrategySchema },
    handler: async (req) => {
      const strategy = parse(createFeatureStrategySchema, req.body)
      await deps.commands.toProject(req.params.projectId, {
        type: 'defaultStrategy.set',
        environment: req.params.environment,
        strategy,
        meta: metaOf(deps, req),
      })
      return json(strategy)
    },
  },
]

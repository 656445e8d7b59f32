import { badData, notFound } from '../domain/errors.js'
import { checkNamingPattern, checkNewFeatureName, featureData } from '../domain/features.js'
import type { Feature } from '../domain/project-state.js'
import type { Request, Route } from '../http/types.js'
import { featureEnvironmentView, featureView, type AdminViewContext } from '../read/admin-views.js'
import {
  changeProjectSchema,
  createFeatureSchema,
  featureNamesSchema,
  jsonPatchSchema,
  replaceFeatureSchema,
  revertFeatureSchema,
  validateFeatureNameSchema,
} from '../schemas/features.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedFeature, committedProject, locateFeature, viewContext } from './lookups.js'
import { parse } from './parse.js'
import { activeFeatures, slicedJsonList } from './sliced-json.js'
import { pastFeature, pastProject, pastViewContext, pastWorld, worldAfter } from './history.js'
import { featureDataResponse, featureEnvironmentResponse, featureResponse, featuresResponse } from '../schemas/responses.js'
import { newId } from '../new-id.js'

const featurePath = '/api/admin/projects/:projectId/features/:featureName'

export const featureRoutes = (deps: ApiDeps): Route[] => {
  const view = (projectId: string, featureName: string, req?: Request) => {
    const project = committedProject(deps, projectId)
    return featureView(committedFeature(deps, projectId, featureName), viewContext(deps, project, req))
  }

  const archivedList = (filter: (f: Feature) => boolean) => {
    const features = []
    for (const project of deps.reads.projects.values()) {
      const ctx = viewContext(deps, project)
      for (const feature of project.features.values()) if (feature.archived && filter(feature)) features.push(featureView(feature, ctx))
    }
    return json({ version: 2, features })
  }

  const bulk = (type: 'feature.archive' | 'feature.revive' | 'feature.delete', status: number) => async (req: Request) => {
    const { features } = parse(featureNamesSchema, req.body)
    await deps.commands.toProject(req.params.projectId, { type, names: features, meta: metaOf(deps, req) })
    return empty(status)
  }

  const single = (type: 'feature.revive' | 'feature.delete') => async (req: Request) => {
    const feature = locateFeature(deps, req.params.featureName)
    if (!feature) throw notFound(`Could not find feature flag "${req.params.featureName}"`)
    req.authorize(type === 'feature.revive' ? 'UPDATE_FEATURE' : 'DELETE_FEATURE', feature.project)
    if (type === 'feature.revive' && !feature.archived) throw badData(`Feature flag "${feature.name}" is not archived`)
    await deps.commands.toProject(feature.project, { type, names: [feature.name], meta: metaOf(deps, req) })
    return empty(200)
  }

  const toggle = (enabled: boolean) => async (req: Request) => {
    await deps.commands.toProject(req.params.projectId, {
      type: 'featureEnvironment.toggle',
      feature: req.params.featureName,
      environment: req.params.environment,
      enabled,
      activateDisabledStrategies: req.query.get('shouldActivateDisabledStrategies') === 'true',
      newStrategyId: newId(),
      meta: metaOf(deps, req),
    })
    return empty(200)
  }

  return [
    {
      method: 'GET',
      path: '/api/admin/projects/:projectId/features',
      access: 'admin',
      docs: { responses: { 200: featuresResponse } },
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        const ctx = viewContext(deps, project, req)
        return slicedJsonList({ before: { version: 2 }, key: 'features', items: activeFeatures(project), view: (f) => featureView(f, ctx) })
      },
    },
    {
      method: 'POST',
      path: '/api/admin/projects/:projectId/features',
      access: 'admin',
      permission: 'CREATE_FEATURE',
      body: true,
      docs: { body: createFeatureSchema, responses: { 201: featureDataResponse } },
      handler: async (req) => {
        const input = parse(createFeatureSchema, req.body)
        // Unleash's wording for a missing project (SEMANTICS 11.1).
        if (!deps.reads.projects.has(req.params.projectId)) throw notFound(`Active project with id ${req.params.projectId} does not exist`)
        await deps.commands.toProject(req.params.projectId, { type: 'feature.create', input, meta: metaOf(deps, req) })
        return json(featureData(committedFeature(deps, req.params.projectId, input.name)), 201)
      },
    },
    {
      method: 'GET',
      path: featurePath,
      access: 'admin',
      docs: { query: { at: 'An event id or ISO 8601 date-time: the flag as it was just after that event' }, responses: { 200: featureResponse } },
      handler: (req) => {
        const past = pastWorld(deps, req)
        if (!past) {
          // Unleash 8.2 (side by side): an archived flag is a 404 here; the archive lists it.
          if (committedFeature(deps, req.params.projectId, req.params.featureName).archived) {
            throw notFound(`Could not find feature flag with name ${req.params.featureName}`)
          }
          return json(view(req.params.projectId, req.params.featureName, req))
        }
        const project = pastProject(past, req.params.projectId)
        return json(featureView(pastFeature(past, req.params.projectId, req.params.featureName), pastViewContext(past, project, req)))
      },
    },
    {
      method: 'PUT',
      path: featurePath,
      access: 'admin',
      permission: 'UPDATE_FEATURE',
      body: true,
      docs: { body: replaceFeatureSchema, responses: { 200: featureDataResponse } },
      handler: async (req) => {
        const input = parse(replaceFeatureSchema, req.body)
        await deps.commands.toProject(req.params.projectId, { type: 'feature.replace', name: req.params.featureName, input, meta: metaOf(deps, req) })
        return json(featureData(committedFeature(deps, req.params.projectId, req.params.featureName)))
      },
    },
    {
      method: 'PATCH',
      path: featurePath,
      access: 'admin',
      permission: 'UPDATE_FEATURE',
      body: true,
      docs: { body: jsonPatchSchema, responses: { 200: featureDataResponse } },
      handler: async (req) => {
        const patch = parse(jsonPatchSchema, req.body)
        await deps.commands.toProject(req.params.projectId, { type: 'feature.patch', name: req.params.featureName, patch, meta: metaOf(deps, req) })
        return json(featureData(committedFeature(deps, req.params.projectId, req.params.featureName)))
      },
    },
    {
      method: 'DELETE',
      path: featurePath,
      access: 'admin',
      permission: 'DELETE_FEATURE',
      docs: { responses: { 202: null } },
      handler: async (req) => {
        await deps.commands.toProject(req.params.projectId, { type: 'feature.archive', names: [req.params.featureName], meta: metaOf(deps, req) })
        return empty(202)
      },
    },
    {
      method: 'POST',
      path: '/api/admin/features/validate',
      access: 'admin',
      body: true,
      docs: { body: validateFeatureNameSchema },
      handler: (req) => {
        const { name, projectId } = parse(validateFeatureNameSchema, req.body)
        const error = checkNewFeatureName(name, deps.reads.world())
        if (error) throw error
        if (projectId) {
          const project = deps.reads.projects.get(projectId)
          const patternError = project && checkNamingPattern(project, name)
          if (patternError) throw patternError
        }
        return empty(200)
      },
    },
    {
      method: 'GET',
      path: '/api/admin/features',
      access: 'admin',
      docs: { responses: { 200: featuresResponse } },
      handler: (req) => {
        const projects = [...deps.reads.projects.values()]
        function* withContexts(): Generator<[Feature, AdminViewContext]> {
          for (const project of projects) {
            const ctx = viewContext(deps, project, req)
            for (const feature of activeFeatures(project)) yield [feature, ctx]
          }
        }
        return slicedJsonList({ before: { version: 2 }, key: 'features', items: withContexts(), view: ([feature, ctx]) => featureView(feature, ctx) })
      },
    },
    {
      method: 'POST',
      path: `${featurePath}/changeProject`,
      access: 'admin',
      permission: 'MOVE_FEATURE_TOGGLE',
      body: true,
      docs: { body: changeProjectSchema },
      handler: async (req) => {
        const { newProjectId } = parse(changeProjectSchema, req.body)
        // SEMANTICS 11.4: MOVE_FEATURE_TOGGLE in both projects; the route checked the source.
        req.authorize('MOVE_FEATURE_TOGGLE', newProjectId)
        await deps.commands.moveFeature(req.params.projectId, newProjectId, req.params.featureName, metaOf(deps, req))
        return empty(200)
      },
    },
    {
      method: 'POST',
      path: `${featurePath}/revert`,
      access: 'admin',
      permission: 'UPDATE_FEATURE',
      body: true,
      docs: { summary: 'Bring the flag back to how it was just after an event', body: revertFeatureSchema, responses: { 200: featureResponse } },
      handler: async (req) => {
        const { toEventId } = parse(revertFeatureSchema, req.body)
        const past = worldAfter(deps, toEventId, 'toEventId')
        const { projectId, featureName } = req.params
        const project = committedProject(deps, projectId)
        const newStrategyIds = Object.fromEntries([...project.environments.keys()].map((env) => [env, newId()]))
        const then = pastFeature(past, projectId, featureName)
        const meta = metaOf(deps, req)
        const command = { type: 'feature.revert' as const, past: then, pastEventId: past.lastId, newStrategyIds, meta }
        // A tag deleted since is created again before the flag carries it.
        await deps.commands.together([{ projectId, command }], [{ type: 'tags.ensure', tags: then.tags, meta }], { instanceFirst: true })
        return json(view(projectId, featureName, req))
      },
    },
    { method: 'GET', path: '/api/admin/archive/features', access: 'admin', docs: { responses: { 200: featuresResponse } }, handler: () => archivedList(() => true) },
    {
      method: 'GET',
      path: '/api/admin/archive/features/:projectId',
      access: 'admin',
      docs: { responses: { 200: featuresResponse } },
      handler: (req) => archivedList((f) => f.project === req.params.projectId),
    },
    { method: 'POST', path: '/api/admin/archive/revive/:featureName', access: 'admin', handler: single('feature.revive') },
    { method: 'DELETE', path: '/api/admin/archive/:featureName', access: 'admin', handler: single('feature.delete') },
    { method: 'POST', path: '/api/admin/projects/:projectId/archive', access: 'admin', permission: 'DELETE_FEATURE', body: true, docs: { body: featureNamesSchema, responses: { 202: null } }, handler: bulk('feature.archive', 202) },
    { method: 'POST', path: '/api/admin/projects/:projectId/revive', access: 'admin', permission: 'UPDATE_FEATURE', body: true, docs: { body: featureNamesSchema }, handler: bulk('feature.revive', 200) },
    { method: 'POST', path: '/api/admin/projects/:projectId/delete', access: 'admin', permission: 'DELETE_FEATURE', body: true, docs: { body: featureNamesSchema }, handler: bulk('feature.delete', 200) },
    {
      method: 'POST',
      path: `${featurePath}/environments/:environment/on`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_ENVIRONMENT',
      docs: { query: { shouldActivateDisabledStrategies: '"true" turns the disabled strategies on too' }, responses: { 200: null } },
      handler: toggle(true),
    },
    {
      method: 'POST',
      path: `${featurePath}/environments/:environment/off`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_ENVIRONMENT',
      docs: { responses: { 200: null } },
      handler: toggle(false),
    },
    {
      method: 'GET',
      path: `${featurePath}/environments/:environment`,
      access: 'admin',
      docs: { responses: { 200: featureEnvironmentResponse } },
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        const feature = committedFeature(deps, req.params.projectId, req.params.featureName)
        const env = feature.environments.get(req.params.environment)
        if (!env) throw notFound(`Could not find environment ${req.params.environment} for feature: ${feature.name}`)
        return json(featureEnvironmentView(feature, req.params.environment, env, viewContext(deps, project)))
      },
    },
  ]
}


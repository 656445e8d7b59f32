import type { Request, Route } from '../http/types.js'
import { addDependencySchema } from '../schemas/variants.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedFeature, committedProject } from './lookups.js'
import { parse } from './parse.js'
import { dependenciesExistResponse } from '../schemas/responses.js'

const featurePath = '/api/admin/projects/:projectId/features/:featureName'

export const dependencyRoutes = (deps: ApiDeps): Route[] => {
  const remove = (parent: (req: Request) => string | undefined) => async (req: Request) => {
    await deps.commands.toProject(req.params.projectId, {
      type: 'dependency.remove',
      feature: req.params.featureName,
      parent: parent(req),
      meta: metaOf(deps, req),
    })
    return empty(200)
  }
  return [
    {
      method: 'POST',
      path: `${featurePath}/dependencies`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_DEPENDENCY',
      body: true,
      docs: { body: addDependencySchema },
      handler: async (req) => {
        const input = parse(addDependencySchema, req.body)
        await deps.commands.toProject(req.params.projectId, {
          type: 'dependency.add',
          feature: req.params.featureName,
          dependency: { feature: input.feature, enabled: input.enabled, variants: input.variants },
          meta: metaOf(deps, req),
        })
        return empty(200)
      },
    },
    {
      method: 'DELETE',
      path: `${featurePath}/dependencies/:parent`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_DEPENDENCY',
      handler: remove((req) => req.params.parent),
    },
    { method: 'DELETE', path: `${featurePath}/dependencies`, access: 'admin', permission: 'UPDATE_FEATURE_DEPENDENCY', handler: remove(() => undefined) },
    {
      // Whether any flag of the project depends on another: Unleash's flag table shows its dependency column then.
      method: 'GET',
      path: '/api/admin/projects/:projectId/dependencies',
      access: 'admin',
      docs: { summary: 'Whether any flag of the project has a parent flag', responses: { 200: dependenciesExistResponse } },
      handler: (req) => json([...committedProject(deps, req.params.projectId).features.values()].some((f) => !f.archived && f.dependencies.length > 0)),
    },
    {
      method: 'GET',
      path: `${featurePath}/parent-variants`,
      access: 'admin',
      // A flag the project does not have has no variants: Unleash answers 200 [] (its flag page asks this
      // for every flag, before it knows whether the flag has a parent; its project page asks it for "default").
      handler: (req) => {
        const parent = committedProject(deps, req.params.projectId).features.get(req.params.featureName)
        const names = new Set<string>()
        for (const env of parent?.environments.values() ?? []) {
          for (const v of env.variants) names.add(v.name)
          for (const s of env.strategies) for (const v of s.variants) names.add(v.name)
        }
        return json([...names].sort())
      },
    },
    {
      method: 'GET',
      path: `${featurePath}/parents`,
      access: 'admin',
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        committedFeature(deps, req.params.projectId, req.params.featureName)
        const children = new Set([...project.features.values()].filter((f) => !f.archived && f.dependencies.length > 0).map((f) => f.name))
        const parents = [...project.features.values()]
          .filter((f) => !f.archived && f.name !== req.params.featureName && !children.has(f.name))
          .map((f) => f.name)
          .sort()
        return json(parents)
      },
    },
  ]
}

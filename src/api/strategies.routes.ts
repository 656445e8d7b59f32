import { badData, forbidden, notFound } from '../domain/errors.js'
import { applyJsonPatch, PatchError } from '../domain/json-patch.js'
import { orderedStrategies } from '../domain/strategies.js'
import { validateConstraint } from '../domain/constraints.js'
import type { Request, Route } from '../http/types.js'
import { strategyView } from '../read/admin-views.js'
import { jsonPatchSchema, strategySortOrderSchema, updateFeatureStrategySchema } from '../schemas/features.js'
import { constraintSchema, createFeatureStrategySchema } from '../schemas/shared.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedFeature } from './lookups.js'
import { parse } from './parse.js'
import { strategiesResponse, strategyResponse } from '../schemas/responses.js'
import { newId } from '../new-id.js'

const strategiesPath = '/api/admin/projects/:projectId/features/:featureName/environments/:environment/strategies'

export const strategyRoutes = (deps: ApiDeps): Route[] => {
  const environmentOf = (req: Request) => {
    const feature = committedFeature(deps, req.params.projectId, req.params.featureName)
    const env = feature.environments.get(req.params.environment)
    if (!env) throw notFound(`Could not find environment ${req.params.environment} for feature: ${feature.name}`)
    return { feature, env }
  }

  const belongsElsewhere = (projectId: string, strategyId: string): boolean => {
    for (const feature of deps.reads.projects.get(projectId)?.features.values() ?? []) {
      for (const env of feature.environments.values()) if (env.strategies.some((s) => s.id === strategyId)) return true
    }
    return false
  }

  const strategyOf = (req: Request) => {
    const { feature, env } = environmentOf(req)
    const strategy = env.strategies.find((s) => s.id === req.params.strategyId)
    if (!strategy) {
      // Unleash answers 403 when the id belongs to another flag's strategy (SEMANTICS 11.3).
      if (belongsElsewhere(req.params.projectId, req.params.strategyId)) throw forbidden('You can not change the featureName for an activation strategy.')
      throw notFound(`Could not find strategy with id ${req.params.strategyId}`)
    }
    return { feature, strategy }
  }

  const reply = (req: Request, strategyId: string) => {
    const { feature, strategy } = strategyOf({ ...req, params: { ...req.params, strategyId } })
    return json(strategyView(strategy, feature.name))
  }

  const update = async (req: Request, input: ReturnType<typeof parse<typeof updateFeatureStrategySchema>>) => {
    await deps.commands.toProject(req.params.projectId, {
      type: 'strategy.update',
      feature: req.params.featureName,
      environment: req.params.environment,
      id: req.params.strategyId,
      input,
      meta: metaOf(deps, req),
    })
    return reply(req, req.params.strategyId)
  }

  return [
    {
      // The strategy form checks each constraint as it is edited; the same rules as a saved strategy's.
      method: 'POST',
      path: '/api/admin/constraints/validate',
      access: 'admin',
      body: true,
      docs: { summary: 'Check a constraint as a strategy would be checked', body: constraintSchema, responses: { 204: null } },
      handler: (req) => {
        const error = validateConstraint(parse(constraintSchema, req.body), deps.reads.world())
        if (error) throw error
        return empty(204)
      },
    },
    {
      method: 'GET',
      path: strategiesPath,
      access: 'admin',
      docs: { responses: { 200: strategiesResponse } },
      handler: (req) => {
        const { feature, env } = environmentOf(req)
        return json(orderedStrategies(env.strategies).map((s) => strategyView(s, feature.name)))
      },
    },
    {
      method: 'POST',
      path: strategiesPath,
      access: 'admin',
      permission: 'CREATE_FEATURE_STRATEGY',
      body: true,
      docs: { body: createFeatureStrategySchema, responses: { 200: strategyResponse } },
      handler: async (req) => {
        const input = parse(createFeatureStrategySchema, req.body)
        const id = newId()
        await deps.commands.toProject(req.params.projectId, {
          type: 'strategy.add',
          feature: req.params.featureName,
          environment: req.params.environment,
          input,
          id,
          meta: metaOf(deps, req),
        })
        return reply(req, id)
      },
    },
    {
      method: 'POST',
      path: `${strategiesPath}/set-sort-order`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_STRATEGY',
      body: true,
      docs: { body: strategySortOrderSchema, responses: { 200: null } },
      handler: async (req) => {
        const order = parse(strategySortOrderSchema, req.body)
        await deps.commands.toProject(req.params.projectId, {
          type: 'strategy.reorder',
          feature: req.params.featureName,
          environment: req.params.environment,
          order,
          meta: metaOf(deps, req),
        })
        return empty(200)
      },
    },
    {
      method: 'GET',
      path: `${strategiesPath}/:strategyId`,
      access: 'admin',
      docs: { responses: { 200: strategyResponse } },
      handler: (req) => reply(req, req.params.strategyId),
    },
    {
      method: 'PUT',
      path: `${strategiesPath}/:strategyId`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_STRATEGY',
      body: true,
      docs: { body: updateFeatureStrategySchema, responses: { 200: strategyResponse } },
      handler: (req) => update(req, parse(updateFeatureStrategySchema, req.body)),
    },
    {
      method: 'PATCH',
      path: `${strategiesPath}/:strategyId`,
      access: 'admin',
      permission: 'UPDATE_FEATURE_STRATEGY',
      body: true,
      docs: { body: jsonPatchSchema, responses: { 200: strategyResponse } },
      handler: (req) => {
        const patch = parse(jsonPatchSchema, req.body)
        const { strategy } = strategyOf(req)
        const { id: _id, sortOrder: _sortOrder, ...editable } = strategy
        let patched: unknown
        try {
          patched = applyJsonPatch({ ...editable, sortOrder: strategy.sortOrder }, patch)
        } catch (error) {
          if (error instanceof PatchError) throw badData(`Could not apply provided patch: ${error.message}`)
          throw error
        }
        if ((patched as { id?: unknown }).id !== undefined) throw forbidden('You can not change the id of an activation strategy.')
        return update(req, parse(updateFeatureStrategySchema, patched))
      },
    },
    {
      method: 'DELETE',
      path: `${strategiesPath}/:strategyId`,
      access: 'admin',
      permission: 'DELETE_FEATURE_STRATEGY',
      docs: { responses: { 200: null } },
      handler: async (req) => {
        await deps.commands.toProject(req.params.projectId, {
          type: 'strategy.delete',
          feature: req.params.featureName,
          environment: req.params.environment,
          id: req.params.strategyId,
          meta: metaOf(deps, req),
        })
        return empty(200)
      },
    },
  ]
}

import { strategyTypeInUse } from '../domain/usage.js'
import { notFound } from '../domain/errors.js'
import type { StrategyType } from '../domain/instance-state.js'
import type { Request, Route } from '../http/types.js'
import { updateStrategyTypeSchema, upsertStrategyTypeSchema } from '../schemas/strategy-types.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { parse } from './parse.js'

const view = ({ builtIn: _builtIn, ...type }: StrategyType) => type

export const strategyTypeRoutes = (deps: ApiDeps): Route[] => {
  const find = (name: string) => {
    const type = deps.reads.instance.strategyTypes.get(name)
    if (!type) throw notFound(`Could not find strategy type with name ${name}`)
    return type
  }
  const deprecate = (deprecated: boolean) => async (req: Request) => {
    await deps.commands.toInstance({ type: 'strategyType.deprecate', name: req.params.name, deprecated, meta: metaOf(deps, req) })
    return empty(200)
  }
  return [
    {
      method: 'GET',
      path: '/api/admin/strategies',
      access: 'admin',
      handler: () => json({ version: 1, strategies: [...deps.reads.instance.strategyTypes.values()].map(view) }),
    },
    {
      method: 'POST',
      path: '/api/admin/strategies',
      access: 'admin',
      permission: 'CREATE_STRATEGY',
      body: true,
      docs: { body: upsertStrategyTypeSchema },
      handler: async (req) => {
        const input = parse(upsertStrategyTypeSchema, req.body)
        await deps.commands.toInstance({ type: 'strategyType.create', input, meta: metaOf(deps, req) })
        return json(view(find(input.name)), 201)
      },
    },
    { method: 'GET', path: '/api/admin/strategies/:name', access: 'admin', handler: (req) => json(view(find(req.params.name))) },
    {
      method: 'PUT',
      path: '/api/admin/strategies/:name',
      access: 'admin',
      permission: 'UPDATE_STRATEGY',
      body: true,
      docs: { body: updateStrategyTypeSchema },
      handler: async (req) => {
        const input = parse(updateStrategyTypeSchema, req.body)
        await deps.commands.toInstance({ type: 'strategyType.update', name: req.params.name, input, meta: metaOf(deps, req) })
        return json(view(find(req.params.name)))
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/strategies/:name',
      access: 'admin',
      permission: 'DELETE_STRATEGY',
      handler: async (req) => {
        const inUse = strategyTypeInUse(deps.reads.projects, req.params.name)
        await deps.commands.toInstance({ type: 'strategyType.delete', name: req.params.name, inUse, meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    { method: 'POST', path: '/api/admin/strategies/:name/deprecate', access: 'admin', permission: 'UPDATE_STRATEGY', handler: deprecate(true) },
    { method: 'POST', path: '/api/admin/strategies/:name/reactivate', access: 'admin', permission: 'UPDATE_STRATEGY', handler: deprecate(false) },
  ]
}

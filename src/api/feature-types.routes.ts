import type { Route } from '../http/types.js'
import { featureTypeLifetimeSchema } from '../schemas/feature-types.js'
import { json, metaOf, type ApiDeps } from './deps.js'
import { parse } from './parse.js'

export const featureTypeRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/admin/feature-types',
    access: 'admin',
    handler: () => json({ version: 1, types: [...deps.reads.instance.featureTypes.values()] }),
  },
  {
    method: 'PUT',
    path: '/api/admin/feature-types/:id/lifetime',
    access: 'admin',
    permission: 'ADMIN',
    body: true,
    docs: { body: featureTypeLifetimeSchema },
    handler: async (req) => {
      const { lifetimeDays } = parse(featureTypeLifetimeSchema, req.body)
      await deps.commands.toInstance({ type: 'featureType.setLifetime', id: req.params.id, lifetimeDays, meta: metaOf(deps, req) })
      return json(deps.reads.instance.featureTypes.get(req.params.id))
    },
  },
]

import { randomBytes } from 'node:crypto'
import type { Route } from '../http/types.js'
import type { ApiTokenType } from '../domain/instance-state.js'
import { apiTokenView } from '../read/admin-views.js'
import { createApiTokenSchema, updateApiTokenSchema } from '../schemas/api-tokens.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { parse } from './parse.js'

// 28 random bytes, as Unleash's v1 secrets.
export const randomSecretPart = (): string => randomBytes(28).toString('hex')

// Admin tokens are legacy in Unleash; here an admin may still make one (as the first start does).
const permissionFor = (verb: 'CREATE' | 'UPDATE' | 'DELETE', type: ApiTokenType): string =>
  type === 'admin' ? 'ADMIN' : type === 'frontend' ? `${verb}_FRONTEND_API_TOKEN` : `${verb}_CLIENT_API_TOKEN`

export const apiTokenRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/admin/api-tokens',
    access: 'admin',
    permission: 'READ_API_TOKEN',
    handler: () => json({ tokens: [...deps.registry.committedInstance.apiTokens.values()].map(apiTokenView) }),
  },
  {
    method: 'GET',
    path: '/api/admin/api-tokens/:name',
    access: 'admin',
    permission: 'READ_API_TOKEN',
    handler: (req) =>
      json({
        tokens: [...deps.registry.committedInstance.apiTokens.values()].filter((t) => t.tokenName === req.params.name).map(apiTokenView),
      }),
  },
  {
    method: 'POST',
    path: '/api/admin/api-tokens',
    access: 'admin',
    permission: ['CREATE_CLIENT_API_TOKEN', 'CREATE_FRONTEND_API_TOKEN'],
    body: true,
    handler: async (req) => {
      const input = parse(createApiTokenSchema, req.body)
      req.authorize(permissionFor('CREATE', input.type))
      const world = { projectExists: (id: string) => deps.registry.project(id)?.getSnapshot().context.state !== undefined }
      const [event] = await deps.dispatcher.toInstance({
        type: 'apiToken.create',
        input,
        random: randomSecretPart(),
        world,
        meta: metaOf(deps, req),
      })
      const token = deps.registry.committedInstance.apiTokens.get(String(event.hidden?.secret))!
      return { status: 201, body: apiTokenView(token), headers: { location: 'api-tokens' } }
    },
  },
  {
    method: 'PUT',
    path: '/api/admin/api-tokens/:token',
    access: 'admin',
    permission: ['UPDATE_CLIENT_API_TOKEN', 'UPDATE_FRONTEND_API_TOKEN'],
    body: true,
    handler: async (req) => {
      const existing = deps.registry.committedInstance.apiTokens.get(req.params.token)
      if (existing) req.authorize(permissionFor('UPDATE', existing.type))
      const { expiresAt } = parse(updateApiTokenSchema, req.body)
      await deps.dispatcher.toInstance({ type: 'apiToken.update', secret: req.params.token, expiresAt, meta: metaOf(deps, req) })
      return empty(200)
    },
  },
  {
    method: 'DELETE',
    path: '/api/admin/api-tokens/:token',
    access: 'admin',
    permission: ['DELETE_CLIENT_API_TOKEN', 'DELETE_FRONTEND_API_TOKEN'],
    handler: async (req) => {
      const existing = deps.registry.committedInstance.apiTokens.get(req.params.token)
      if (existing) req.authorize(permissionFor('DELETE', existing.type))
      await deps.dispatcher.toInstance({ type: 'apiToken.delete', secret: req.params.token, meta: metaOf(deps, req) })
      return empty(200)
    },
  },
]

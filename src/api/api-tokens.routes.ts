import { randomBytes } from 'node:crypto'
import { hashTokenSecret, newTokenSecret } from '../domain/api-tokens.js'
import { badData } from '../domain/errors.js'
import type { Request, Route } from '../http/types.js'
import type { ApiToken, ApiTokenType } from '../domain/instance-state.js'
import { apiTokenView } from '../read/admin-views.js'
import { createApiTokenSchema, updateApiTokenSchema } from '../schemas/api-tokens.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { parse } from './parse.js'
import { apiTokenResponse, apiTokensResponse } from '../schemas/responses.js'

// 28 random bytes, as Unleash's v1 secrets.
export const randomSecretPart = (): string => randomBytes(28).toString('hex')

// Admin tokens are legacy in Unleash; here an admin may still make one (as the first start does).
const permissionFor = (verb: 'CREATE' | 'UPDATE' | 'DELETE', type: ApiTokenType): string =>
  type === 'admin' ? 'ADMIN' : type === 'frontend' ? `${verb}_FRONTEND_API_TOKEN` : `${verb}_CLIENT_API_TOKEN`

// Admin tokens are listed to admins only: anyone else who saw one could act as an admin.
const visibleTokens = (deps: ApiDeps, req: Request): ApiToken[] => {
  const isAdmin = req.principal?.can('ADMIN') === true
  return [...deps.reads.instance.apiTokens.values()].filter((token) => isAdmin || token.type !== 'admin')
}

// A path names a token by its full secret, or by the masked form a listing shows when that is unambiguous.
const tokenNamed = (deps: ApiDeps, named: string): { secretHash: string; token: ApiToken | undefined } => {
  const tokens = deps.reads.instance.apiTokens
  const secretHash = hashTokenSecret(named)
  const exact = tokens.get(secretHash)
  if (exact || !named.endsWith('…')) return { secretHash, token: exact }
  const masked = [...tokens.values()].filter((token) => token.maskedSecret === named)
  if (masked.length > 1) throw badData(`"${named}" names more than one token: use the full secret`)
  return masked.length === 1 ? { secretHash: masked[0].secretHash, token: masked[0] } : { secretHash, token: undefined }
}

export const apiTokenRoutes = (deps: ApiDeps): Route[] => [
  {
    method: 'GET',
    path: '/api/admin/api-tokens',
    access: 'admin',
    permission: 'READ_API_TOKEN',
    docs: { responses: { 200: apiTokensResponse } },
    handler: (req) => json({ tokens: visibleTokens(deps, req).map((token) => apiTokenView(token, deps.tokenSeen.of(token.secretHash))) }),
  },
  {
    method: 'GET',
    path: '/api/admin/api-tokens/:name',
    access: 'admin',
    permission: 'READ_API_TOKEN',
    docs: { responses: { 200: apiTokensResponse } },
    handler: (req) => json({ tokens: visibleTokens(deps, req).filter((t) => t.tokenName === req.params.name).map((token) => apiTokenView(token, deps.tokenSeen.of(token.secretHash))) }),
  },
  {
    method: 'POST',
    path: '/api/admin/api-tokens',
    access: 'admin',
    permission: ['CREATE_CLIENT_API_TOKEN', 'CREATE_FRONTEND_API_TOKEN'],
    body: true,
    docs: { body: createApiTokenSchema, responses: { 201: apiTokenResponse } },
    handler: async (req) => {
      const input = parse(createApiTokenSchema, req.body)
      req.authorize(permissionFor('CREATE', input.type))
      const random = randomSecretPart()
      await deps.commands.toInstance({ type: 'apiToken.create', input, random, meta: metaOf(deps, req) })
      const secret = newTokenSecret(input, random)
      const token = deps.reads.instance.apiTokens.get(hashTokenSecret(secret))!
      // The one time the whole secret is shown.
      return { status: 201, body: { ...apiTokenView(token, null), secret }, headers: { location: 'api-tokens' } }
    },
  },
  {
    method: 'PUT',
    path: '/api/admin/api-tokens/:token',
    access: 'admin',
    permission: ['UPDATE_CLIENT_API_TOKEN', 'UPDATE_FRONTEND_API_TOKEN'],
    body: true,
    docs: { body: updateApiTokenSchema },
    handler: async (req) => {
      const { secretHash, token } = tokenNamed(deps, req.params.token)
      if (token) req.authorize(permissionFor('UPDATE', token.type))
      const { expiresAt } = parse(updateApiTokenSchema, req.body)
      await deps.commands.toInstance({ type: 'apiToken.update', secretHash, expiresAt, meta: metaOf(deps, req) })
      return empty(200)
    },
  },
  {
    method: 'DELETE',
    path: '/api/admin/api-tokens/:token',
    access: 'admin',
    permission: ['DELETE_CLIENT_API_TOKEN', 'DELETE_FRONTEND_API_TOKEN'],
    docs: { responses: { 200: null } },
    handler: async (req) => {
      const { secretHash, token } = tokenNamed(deps, req.params.token)
      if (token) req.authorize(permissionFor('DELETE', token.type))
      await deps.commands.toInstance({ type: 'apiToken.delete', secretHash, meta: metaOf(deps, req) })
      return empty(200)
    },
  },
]

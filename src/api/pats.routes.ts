import { randomBytes } from 'node:crypto'
import { notFound } from '../domain/errors.js'
import { recordOfType } from '../domain/events.js'
import type { Pat } from '../domain/people-state.js'
import type { Request, Route } from '../http/types.js'
import { rootRoles, userView } from '../read/people-views.js'
import { hashPatSecret } from '../sign-in/sessions.js'
import { createPatSchema, createServiceAccountSchema, updateUserSchema } from '../schemas/people.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { callerUserId, numericId, peopleContext } from './people-context.js'
import { parse } from './parse.js'

const patView = ({ secretHash: _hash, ...pat }: Pat) => ({ ...pat, seenAt: null })

// Personal access tokens (a user's own) and service accounts with their tokens: both act as their user.
export const patRoutes = (deps: ApiDeps): Route[] => {
  const people = () => deps.reads.instance.people
  const patsOf = (userId: number) => [...people().pats.values()].filter((p) => p.userId === userId).map(patView)

  const createPat = async (req: Request, userId: number) => {
    const input = parse(createPatSchema, req.body)
    const secret = `user:${randomBytes(28).toString('hex')}`
    const records = await deps.commands.toInstance({
      type: 'pat.create',
      userId,
      description: input.description,
      expiresAt: input.expiresAt,
      secretHash: hashPatSecret(secret),
      meta: metaOf(deps, req),
    })
    const event = recordOfType(records, 'pat-created')
    // The only time the secret is shown.
    return json({ ...event.data, secret, seenAt: null }, 201)
  }

  const deletePat = async (req: Request, userId: number, id: number) => {
    await deps.commands.toInstance({ type: 'pat.delete', userId, id, meta: metaOf(deps, req) })
    return empty(200)
  }

  const serviceAccount = (id: number) => {
    const user = people().users.get(id)
    if (!user || user.deleted || user.accountType !== 'Service Account') throw notFound(`Could not find service account with id ${id}`)
    return user
  }
  const serviceAccountView = (id: number) => ({ ...userView(serviceAccount(id), peopleContext(deps)), tokens: patsOf(id) })

  return [
    { method: 'GET', path: '/api/admin/user/tokens', access: 'admin', handler: (req) => json({ pats: patsOf(callerUserId(req)) }) },
    { method: 'POST', path: '/api/admin/user/tokens', access: 'admin', body: true, docs: { body: createPatSchema }, handler: (req) => createPat(req, callerUserId(req)) },
    {
      method: 'DELETE',
      path: '/api/admin/user/tokens/:id',
      access: 'admin',
      handler: (req) => deletePat(req, callerUserId(req), numericId(req.params.id, 'id')),
    },
    {
      method: 'GET',
      path: '/api/admin/service-account',
      access: 'admin',
      permission: 'ADMIN',
      handler: () =>
        json({
          serviceAccounts: [...people().users.values()].filter((u) => !u.deleted && u.accountType === 'Service Account').map((u) => serviceAccountView(u.id)),
          rootRoles: rootRoles(people()),
        }),
    },
    {
      method: 'POST',
      path: '/api/admin/service-account',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: createServiceAccountSchema },
      handler: async (req) => {
        const input = parse(createServiceAccountSchema, req.body)
        const event = recordOfType(await deps.commands.toInstance({ type: 'serviceAccount.create', input, meta: metaOf(deps, req) }), 'service-account-created')
        return json(serviceAccountView(event.data.id), 201)
      },
    },
    {
      method: 'PUT',
      path: '/api/admin/service-account/:id',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: updateUserSchema },
      handler: async (req) => {
        const id = numericId(req.params.id, 'id')
        await deps.commands.toInstance({ type: 'serviceAccount.update', id, input: parse(updateUserSchema, req.body), meta: metaOf(deps, req) })
        return json(serviceAccountView(id))
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/service-account/:id',
      access: 'admin',
      permission: 'ADMIN',
      handler: async (req) => {
        await deps.commands.toInstance({ type: 'serviceAccount.delete', id: numericId(req.params.id, 'id'), meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    {
      method: 'GET',
      path: '/api/admin/service-account/:id/token',
      access: 'admin',
      permission: 'ADMIN',
      handler: (req) => json({ pats: patsOf(serviceAccount(numericId(req.params.id, 'id')).id) }),
    },
    {
      method: 'POST',
      path: '/api/admin/service-account/:id/token',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: createPatSchema },
      handler: (req) => createPat(req, serviceAccount(numericId(req.params.id, 'id')).id),
    },
    {
      method: 'DELETE',
      path: '/api/admin/service-account/:id/token/:tokenId',
      access: 'admin',
      permission: 'ADMIN',
      handler: (req) => deletePat(req, serviceAccount(numericId(req.params.id, 'id')).id, numericId(req.params.tokenId, 'tokenId')),
    },
  ]
}

import { randomBytes } from 'node:crypto'
import { badData, notFound } from '../domain/errors.js'
import { recordOfType } from '../domain/events.js'
import { isSignupTokenValid } from '../domain/people.js'
import type { Route } from '../http/types.js'
import { signupTokenView, userView } from '../read/people-views.js'
import { createSignupTokenSchema, signupSchema, updateSignupTokenSchema } from '../schemas/people.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { checkPasswordStrength, hashPassword } from './passwords.js'
import { peopleContext } from './people-context.js'
import { parse } from './parse.js'

export const signupTokenRoutes = (deps: ApiDeps): Route[] => {
  const tokens = () => deps.reads.instance.people.signupTokens
  const find = (secret: string) => {
    const token = tokens().get(secret)
    if (!token) throw notFound('Could not find the signup token')
    return token
  }
  const view = (secret: string) => signupTokenView(find(secret), peopleContext(deps))

  return [
    {
      method: 'GET',
      path: '/api/admin/invite-link/tokens',
      access: 'admin',
      permission: 'ADMIN',
      handler: () => json({ tokens: [...tokens().keys()].map(view) }),
    },
    {
      method: 'POST',
      path: '/api/admin/invite-link/tokens',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: createSignupTokenSchema },
      handler: async (req) => {
        const input = parse(createSignupTokenSchema, req.body)
        const secret = randomBytes(16).toString('hex')
        await deps.commands.toInstance({ type: 'signupToken.create', input, secret, meta: metaOf(deps, req) })
        return { status: 201, body: view(secret), headers: { location: `tokens/${secret}` } }
      },
    },
    { method: 'GET', path: '/api/admin/invite-link/tokens/:token', access: 'admin', permission: 'ADMIN', handler: (req) => json(view(req.params.token)) },
    {
      method: 'PUT',
      path: '/api/admin/invite-link/tokens/:token',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: updateSignupTokenSchema },
      handler: async (req) => {
        const input = parse(updateSignupTokenSchema, req.body)
        await deps.commands.toInstance({ type: 'signupToken.update', secret: req.params.token, input, meta: metaOf(deps, req) })
        return json(view(req.params.token))
      },
    },
    {
      method: 'GET',
      path: '/invite/:token/validate',
      access: 'public',
      handler: (req) => {
        const token = tokens().get(req.params.token)
        if (!token || !isSignupTokenValid(token, deps.clock().toISOString())) throw badData('The invite link is not valid')
        return empty(200)
      },
    },
    {
      method: 'POST',
      path: '/invite/:token/signup',
      access: 'public',
      body: true,
      docs: { body: signupSchema },
      handler: async (req) => {
        const input = parse(signupSchema, req.body)
        checkPasswordStrength(input.password)
        const passwordHash = await hashPassword(input.password)
        const records = await deps.commands.toInstance({
          type: 'signupToken.signup',
          secret: req.params.token,
          user: { email: input.email, name: input.name, username: input.username },
          passwordHash,
          meta: { now: deps.clock().toISOString(), actor: { name: 'unleash_system_user', userId: -1337 } },
        })
        const user = deps.reads.instance.people.users.get(recordOfType(records, 'user-created').data.id)!
        return json(userView(user, peopleContext(deps)), 201)
      },
    },
  ]
}

import * as v from 'valibot'
import { DomainError, badData, notFound, rateLimited } from '../domain/errors.js'
import { recordOfType } from '../domain/events.js'
import { sessionCookie, cookieValue } from '../http/auth.js'
import type { Request, Route } from '../http/types.js'
import { permissionList } from '../read/permissions.js'
import { profileView, rootRoles, userView } from '../read/people-views.js'
import { createUserSchema, loginSchema, passwordSchema, splashIdSchema, updateUserSchema } from '../schemas/people.js'
import { LoginThrottle } from '../sign-in/login-throttle.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { checkPasswordStrength, hashPassword, verifyPassword } from './passwords.js'
import { callerUserId, numericId, peopleContext } from './people-context.js'
import { parse } from './parse.js'
import { profileResponse, splashResponse } from '../schemas/responses.js'

const searchQuery = v.object({ q: v.optional(v.pipe(v.string(), v.maxLength(255, '"q" must be at most 255 characters long')), '') })

// Secure when asked for, or (auto) when the public URL is https or a proxy says the request came over https.
const cookieAttributes = (deps: ApiDeps, req: Request): string => {
  const mode = deps.config.secureCookies
  const secure = mode === 'always' || (mode === 'auto' && (deps.config.publicUrl.startsWith('https://') || req.header('x-forwarded-proto') === 'https'))
  return `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`
}

export const userRoutes = (deps: ApiDeps): Route[] => {
  const throttle = new LoginThrottle({ perAccount: deps.config.loginMaxFailuresPerMinute, perAddress: deps.config.loginMaxFailuresPerMinute * 10 })
  const people = () => deps.reads.instance.people
  const findUser = (id: number) => {
    const user = people().users.get(id)
    if (!user || user.deleted || user.accountType !== 'User') throw notFound(`Could not find user with id ${id}`)
    return user
  }
  const view = (id: number) => userView(findUser(id), peopleContext(deps))
  const activeUsers = () => [...people().users.values()].filter((u) => !u.deleted && u.accountType === 'User')

  const setPassword = async (req: Request, userId: number, password: string) => {
    checkPasswordStrength(password)
    await deps.commands.toInstance({ type: 'user.setPassword', id: userId, passwordHash: await hashPassword(password), meta: metaOf(deps, req) })
  }

  const currentUser = (req: Request) => {
    const principal = req.principal!
    if (principal.kind !== 'user' || principal.userId === null) {
      return { user: { id: null, username: principal.name, isAPI: true, rootRole: 1, permissions: [] }, permissions: [{ permission: 'ADMIN' }], feedback: [], splash: {} }
    }
    const permissions = permissionList(
      { people, project: (id) => deps.reads.projects.get(id) },
      principal.userId,
      [...deps.reads.projects.keys()],
    )
    const splash = Object.fromEntries((deps.activity.of(principal.userId).splash ?? []).map((id) => [id, true]))
    return { user: view(principal.userId), permissions, feedback: [], splash }
  }

  return [
    {
      method: 'GET',
      path: '/api/admin/user-admin',
      access: 'admin',
      permission: 'ADMIN',
      handler: () => json({ users: activeUsers().map((u) => userView(u, peopleContext(deps))), rootRoles: rootRoles(people()) }),
    },
    {
      method: 'GET',
      path: '/api/admin/user-admin/search',
      access: 'admin',
      handler: (req) => {
        const { q } = parse(searchQuery, { q: req.query.get('q') ?? undefined }, 'query')
        // Unleash: a query under 2 characters finds no one (SEMANTICS 13).
        if (q.length < 2) return json({ users: [], rootRoles: rootRoles(people()) })
        const needle = q.toLowerCase()
        // Unleash: the name contains q; the username or email starts with it (SEMANTICS 13).
        const matches = activeUsers().filter(
          (u) =>
            (u.name ?? '').toLowerCase().includes(needle) ||
            (u.username ?? '').toLowerCase().startsWith(needle) ||
            (u.email ?? '').toLowerCase().startsWith(needle),
        )
        return json({ users: matches.slice(0, 100).map((u) => userView(u, peopleContext(deps))), rootRoles: rootRoles(people()) })
      },
    },
    {
      method: 'POST',
      path: '/api/admin/user-admin/validate-password',
      access: 'admin',
      body: true,
      docs: { body: passwordSchema },
      handler: (req) => {
        checkPasswordStrength(parse(passwordSchema, req.body).password)
        return empty(200)
      },
    },
    {
      method: 'POST',
      path: '/api/admin/user-admin',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: createUserSchema },
      handler: async (req) => {
        const input = parse(createUserSchema, req.body)
        if (input.password !== undefined) checkPasswordStrength(input.password)
        const passwordHash = input.password === undefined ? null : await hashPassword(input.password)
        const event = recordOfType(await deps.commands.toInstance({ type: 'user.create', input: { ...input, password: undefined }, passwordHash, meta: metaOf(deps, req) }), 'user-created')
        return json({ ...view(event.data.id), inviteLink: `${deps.config.publicUrl}/login`, emailSent: false }, 201)
      },
    },
    { method: 'GET', path: '/api/admin/user-admin/:id', access: 'admin', permission: 'ADMIN', handler: (req) => json(view(numericId(req.params.id, 'id'))) },
    {
      method: 'PUT',
      path: '/api/admin/user-admin/:id',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: updateUserSchema },
      handler: async (req) => {
        const id = numericId(req.params.id, 'id')
        const input = parse(updateUserSchema, req.body)
        await deps.commands.toInstance({ type: 'user.update', id, input, meta: metaOf(deps, req) })
        return json(view(id))
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/user-admin/:id',
      access: 'admin',
      permission: 'ADMIN',
      handler: async (req) => {
        const id = numericId(req.params.id, 'id')
        await deps.commands.toInstance({ type: 'user.delete', id, meta: metaOf(deps, req) })
        await deps.sessions.destroyAllOf(id)
        return empty(200)
      },
    },
    {
      method: 'POST',
      path: '/api/admin/user-admin/:id/change-password',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: passwordSchema },
      handler: async (req) => {
        const id = numericId(req.params.id, 'id')
        findUser(id)
        await setPassword(req, id, parse(passwordSchema, req.body).password)
        return empty(200)
      },
    },
    { method: 'GET', path: '/api/admin/user', access: 'admin', handler: (req) => json(currentUser(req)) },
    {
      // The admin UI notes a one-time hint the user has seen, and shows it no more (GET /api/admin/user's splash).
      method: 'POST',
      path: '/api/admin/splash/:splashId',
      access: 'admin',
      docs: { summary: 'Note that the signed-in user has seen a hint of the admin UI', responses: { 200: splashResponse } },
      handler: async (req) => {
        const userId = callerUserId(req)
        const splashId = parse(splashIdSchema, req.params.splashId, 'params')
        await deps.activity.splashSeen(userId, splashId)
        return json({ splashId, userId, seen: true })
      },
    },
    {
      // An API token has no profile: 400, as Unleash ("User id is missing").
      method: 'GET',
      path: '/api/admin/user/profile',
      access: 'admin',
      docs: { summary: "The signed-in user's root role, projects and groups", responses: { 200: profileResponse } },
      handler: (req) => {
        const user = people().users.get(callerUserId(req))
        if (!user || user.deleted) throw notFound('Could not find the signed-in user')
        return json(profileView(user, people(), deps.reads.projects.values(), user.passwordHash !== null))
      },
    },
    {
      method: 'POST',
      path: '/api/admin/user/change-password',
      access: 'admin',
      body: true,
      docs: { body: passwordSchema },
      handler: async (req) => {
        const input = parse(passwordSchema, req.body)
        if (input.confirmPassword !== undefined && input.confirmPassword !== input.password) throw badData('"confirmPassword" does not match "password"')
        await setPassword(req, callerUserId(req), input.password)
        return empty(200)
      },
    },
    {
      method: 'POST',
      path: '/auth/simple/login',
      access: 'public',
      body: true,
      docs: { body: loginSchema },
      handler: async (req) => {
        const { username, password } = parse(loginSchema, req.body)
        const needle = username.toLowerCase()
        const user = activeUsers().find((u) => u.username?.toLowerCase() === needle || u.email?.toLowerCase() === needle)
        // One count per account, named by username or email; a name that is no one's counts for itself.
        const account = user ? `user:${user.id}` : `name:${needle}`
        const address = req.clientAddress
        const retryAfter = throttle.attempt(account, address)
        if (retryAfter > 0) throw rateLimited(`Too many failed logins: try again in ${retryAfter} seconds.`, retryAfter)
        const valid = await verifyPassword(password, user?.passwordHash ?? null)
        if (!user || !valid) {
          if (user) await deps.activity.failedLogin(user.id)
          throw new DomainError('PasswordMismatch', 'Wrong password, try again.')
        }
        throttle.succeeded(account, address)
        await deps.activity.loggedIn(user.id, deps.clock().toISOString())
        const sessionId = await deps.sessions.create(user.id)
        return {
          status: 200,
          body: userView(user, peopleContext(deps)),
          headers: { 'set-cookie': `${sessionCookie}=${sessionId}; ${cookieAttributes(deps, req)}; Max-Age=172800` },
        }
      },
    },
    {
      method: 'POST',
      path: '/logout',
      access: 'public',
      handler: async (req) => {
        const sessionId = cookieValue(req.header('cookie'), sessionCookie)
        if (sessionId) await deps.sessions.destroy(sessionId)
        return { status: 200, headers: { 'set-cookie': `${sessionCookie}=; ${cookieAttributes(deps, req)}; Max-Age=0` } }
      },
    },
  ]
}

import { maskTokenSecret } from '../../src/domain/api-tokens.js'
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import { loadConfig } from '../../src/config.js'
import { startServer, type RunningServer } from '../../src/server.js'
import { api, request, type ApiResult, type Body, type ServerRef } from './admin-api.js'
import { randomAdminToken } from './server.js'

// Users, sessions, PATs and the callers they make, for the people and permission suites.

export const sessionCookieName = 'unleash-session'
// Strong enough for the OWASP rules of src/api/passwords.ts.
export const defaultAdminPassword = 'Adm1n-Passw0rd!'
export const strongPassword = (seed: string) => `Str0ng-${seed}-Pa55!`

export interface PeopleServer extends ServerRef {
  running: RunningServer
  dataDir: string
  routes: RunningServer['routes']
  stop(): Promise<void>
  // Stops this server and starts a new one on the same data dir (same admin token, same options).
  restart(): Promise<PeopleServer>
}

export interface PeopleServerOptions {
  dataDir?: string
  adminToken?: string
  env?: Record<string, string>
  clock?: () => Date
}

// The real server in-process on a free loopback port; RunningServer.routes is the whole route table.
// Stopped, and its data dir removed, when `t` ends.
export const startPeopleServer = async (t: Test, options: PeopleServerOptions = {}): Promise<PeopleServer> => {
  const ownsDir = options.dataDir === undefined
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'unleash-people-'))
  const adminToken = options.adminToken ?? randomAdminToken()
  const servers: PeopleServer[] = []
  const start = async (): Promise<PeopleServer> => {
    const env = {
      HTTP_PORT: '0',
      HTTP_HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      INIT_ADMIN_API_TOKENS: adminToken,
      UNLEASH_DEFAULT_ADMIN_PASSWORD: defaultAdminPassword,
      ...options.env,
    }
    const running = await startServer(loadConfig(env), options.clock ? { clock: options.clock } : {})
    let stopped: Promise<void> | undefined
    const server: PeopleServer = {
      baseUrl: `http://127.0.0.1:${running.port}`,
      adminToken,
      running,
      dataDir,
      routes: running.routes,
      stop: () => (stopped ??= running.close()),
      restart: async () => {
        await server.stop()
        return start()
      },
    }
    servers.push(server)
    return server
  }
  t.teardown(async () => {
    for (const server of servers) await server.stop()
    if (ownsDir) rmSync(dataDir, { recursive: true, force: true })
  })
  return start()
}

// Who makes a request: a session cookie, a token (PAT or API token), or nothing at all.
export interface Caller {
  label: string
  token?: string
  session?: string
}

export const adminTokenCaller = (server: ServerRef): Caller => ({ label: 'admin token', token: server.adminToken })
export const patCaller = (label: string, secret: string): Caller => ({ label, token: secret })
export const sessionCaller = (label: string, session: string): Caller => ({ label, session })

export const callAs = <T = any>(server: ServerRef, caller: Caller, method: string, path: string, body?: Body): Promise<ApiResult<T>> =>
  request<T>(server, {
    method,
    path,
    body,
    token: caller.token ?? null,
    headers: caller.session ? { cookie: `${sessionCookieName}=${caller.session}` } : {},
  })

// The session id of a login reply's Set-Cookie, if any.
export const sessionOf = (res: ApiResult): string | undefined => {
  for (const cookie of res.headers.getSetCookie()) {
    const match = new RegExp(`^${sessionCookieName}=([^;]*)`).exec(cookie)
    if (match && match[1]) return match[1]
  }
  return undefined
}

export const login = (server: ServerRef, username: string, password: string) =>
  request(server, { method: 'POST', path: '/auth/simple/login', token: null, body: { username, password } })

export const isoInDays = (days: number, from = Date.now()) => new Date(from + days * 24 * 3600 * 1000).toISOString()

export interface Person {
  id: number
  username: string
  email: string
  password: string
  // A logged-in session of this person.
  session: Caller
}

export interface PersonInput {
  username: string
  rootRole: number | string
  email?: string
  name?: string
}

// Creates a user with a password (as the admin token) and logs them in; throws on any refusal.
export const createPerson = async (server: ServerRef, input: PersonInput): Promise<Person> => {
  const email = input.email ?? `${input.username}@example.com`
  const password = strongPassword(input.username)
  const created = await api(server, 'POST', '/api/admin/user-admin', {
    username: input.username,
    email,
    name: input.name ?? input.username,
    rootRole: input.rootRole,
    password,
  })
  if (created.status !== 201) throw new Error(`creating user ${input.username} failed: ${created.status} ${created.text}`)
  const res = await login(server, input.username, password)
  const session = sessionOf(res)
  if (res.status !== 200 || !session) throw new Error(`logging in ${input.username} failed: ${res.status} ${res.text}`)
  return { id: created.body.id, username: input.username, email, password, session: sessionCaller(input.username, session) }
}

export interface CreatedPat {
  id: number
  secret: string
  res: ApiResult
}

export const createPat = async (server: ServerRef, caller: Caller, description: string, expiresAt = isoInDays(30)): Promise<CreatedPat> => {
  const res = await callAs(server, caller, 'POST', '/api/admin/user/tokens', { description, expiresAt })
  if (res.status !== 201) throw new Error(`creating PAT ${description} for ${caller.label} failed: ${res.status} ${res.text}`)
  return { id: res.body.id, secret: res.body.secret, res }
}

// Grants project roles to users (as the admin token); throws on any refusal.
export const grantProjectRoles = async (server: ServerRef, project: string, roles: number[], users: number[], groups: number[] = []) => {
  const res = await api(server, 'POST', `/api/admin/projects/${encodeURIComponent(project)}/access`, { roles, users, groups })
  if (res.status !== 200) throw new Error(`granting ${roles} in ${project} failed: ${res.status} ${res.text}`)
}

export interface ListedEvent {
  id: number
  type: string
  createdAt: string
  createdBy: string
  createdByUserId: number | null
  project: string | null
  environment: string | null
  featureName: string | null
  data: any
  preData: any
}

// The newest 100 events (GET /api/admin/events), newest first.
export const latestEvents = async (server: ServerRef): Promise<ListedEvent[]> => {
  const res = await api(server, 'GET', '/api/admin/events')
  if (res.status !== 200) throw new Error(`listing events failed: ${res.status} ${res.text}`)
  return res.body.events
}

// The newest event of a type, or undefined.
export const newestEvent = async (server: ServerRef, type: string): Promise<ListedEvent | undefined> =>
  (await latestEvents(server)).find((e) => e.type === type)

// The name the server records for the admin token's writes (its tokenName).
export const adminTokenName = async (server: ServerRef): Promise<string> => {
  const res = await api(server, 'GET', '/api/admin/api-tokens')
  const token = (res.body?.tokens ?? []).find((tk: { secret: string }) => tk.secret === maskTokenSecret(server.adminToken))
  if (!token) throw new Error(`the admin token is not listed: ${res.status} ${res.text.slice(0, 300)}`)
  return token.tokenName
}

// The exact 403 message of SEMANTICS 7.4 for a set of permissions, with the environment when one is named.
export const permissionMessage = (permissions: string[], environment?: string) => {
  const named = permissions.length === 1 ? `the "${permissions[0]}" permission` : `one of the following permissions: ${permissions.map((p) => `"${p}"`).join(', ')}`
  return `You don't have the required permissions to perform this operation. To perform this action, you need ${named}${environment ? ` in the "${environment}" environment` : ''}.`
}

// Every reply a suite received, so that a final scan can look for secrets in all of them.
export class Transcript {
  private readonly entries: { label: string; text: string; allowed: string[] }[] = []

  record(label: string, res: ApiResult, allowed: string[] = []): void {
    this.entries.push({ label, text: res.text, allowed })
  }

  get size(): number {
    return this.entries.length
  }

  // Replies that contain `needle`, except those recorded as allowed to show it.
  holding(needle: string): string[] {
    return this.entries.filter((e) => e.text.includes(needle) && !e.allowed.includes(needle)).map((e) => e.label)
  }
}

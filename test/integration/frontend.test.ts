import t from 'tap'
import {
  addStrategy,
  api,
  clientToken,
  createApiToken,
  createEnabledFeature,
  createFeature,
  createProject,
  expectOk,
  request,
} from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

// Frontend API (SEMANTICS 5.8, 7.3).
const server = await startTestServer(t)
const P = 'fe'
const Q = 'fe-other'
expectOk(await createProject(server, { id: P, name: 'Frontend' }), 'create project')
expectOk(await createProject(server, { id: Q, name: 'Other' }), 'create other project')

const frontendToken = async (projects?: string[]) => {
  const res = await createApiToken(server, { type: 'frontend', environment: 'development', tokenName: `fe-${Math.random().toString(36).slice(2, 8)}`, ...(projects ? { projects } : {}) })
  if (res.status !== 201) throw new Error(`frontend token: ${res.status} ${res.text}`)
  return res.body.secret as string
}
const scoped = await frontendToken([P])
const everything = await frontendToken()

await createEnabledFeature(server, P, 'fe-on')
expectOk(await createFeature(server, P, 'fe-off'), 'fe-off')
expectOk(await addStrategy(server, P, 'fe-off', 'development'), 'fe-off strategy')
await createEnabledFeature(server, P, 'fe-user', 'development', { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice'] }] })
await createEnabledFeature(server, P, 'fe-plan', 'development', { name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }] })
await createEnabledFeature(server, P, 'fe-variant', 'development', {
  name: 'flexibleRollout',
  parameters: { rollout: '100', stickiness: 'default', groupId: 'fe-variant' },
  variants: [{ name: 'only', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'hi' } }],
})
await createEnabledFeature(server, Q, 'fe-q')

const frontend = (token: string | null, query = '', headers: Record<string, string> = {}) => request(server, { method: 'GET', path: `/api/frontend${query}`, token, headers })
const names = (res: any) => (res.body.toggles as any[]).map((x) => x.name)

t.test('GET with the context in the query', async (t) => {
  const res = await frontend(scoped, '?userId=alice&appName=web')
  if (!expectStatus(t, res, 200, 'GET')) return
  t.same(names(res), ['fe-on', 'fe-user', 'fe-variant'], 'only the enabled flags of the token scope')
  t.match(res.headers.get('cache-control'), /no-cache/, 'Cache-control: no-cache')
  const on = (res.body.toggles as any[]).find((x) => x.name === 'fe-on')
  t.same(on, {
    name: 'fe-on',
    enabled: true,
    variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true },
    impressionData: false,
  }, 'a flag without variants')
  const variant = (res.body.toggles as any[]).find((x) => x.name === 'fe-variant')
  t.same(variant.variant, { name: 'only', enabled: true, payload: { type: 'string', value: 'hi' }, feature_enabled: true, featureEnabled: true }, 'with its variant')

  t.same(names(await frontend(scoped, '?userId=bob')), ['fe-on', 'fe-variant'], 'bob does not match fe-user')
  t.same(names(await frontend(scoped, '?userId=bob&plan=pro')), ['fe-on', 'fe-plan', 'fe-variant'], 'other keys become properties')
  t.same(names(await frontend(scoped, '?properties[plan]=pro')), ['fe-on', 'fe-plan', 'fe-variant'], 'properties[x] in the query')
  expectError(t, await frontend(scoped, '?currentTime=not-a-date'), { status: 400, message: /currentTime/ }, 'a bad currentTime')
})

t.test('POST with {context}', async (t) => {
  const res = await request(server, { method: 'POST', path: '/api/frontend', token: scoped, body: { context: { userId: 'alice', plan: 'pro' } } })
  expectStatus(t, res, 200, 'POST')
  t.same(names(res), ['fe-on', 'fe-plan', 'fe-user', 'fe-variant'])
  const nested = await request(server, { method: 'POST', path: '/api/frontend', token: scoped, body: { context: { properties: { plan: 'pro' } } } })
  t.same(names(nested), ['fe-on', 'fe-plan', 'fe-variant'], 'properties nested')
  const empty = await request(server, { method: 'POST', path: '/api/frontend', token: scoped, body: {} })
  t.same(names(empty), ['fe-on', 'fe-variant'], 'no context')
  // Unleash reads a POST's context from `context` only (its frontend controller's createContext): fields at
  // the top level of the body are not a context.
  const unwrapped = await request(server, { method: 'POST', path: '/api/frontend', token: scoped, body: { userId: 'alice', plan: 'pro', properties: { plan: 'pro' } } })
  t.same(names(unwrapped), ['fe-on', 'fe-variant'], 'a context at the top level of the body is not read')
  expectError(t, await request(server, { method: 'POST', path: '/api/frontend', token: scoped, body: { context: 'x' } }), { status: 400, message: /context/ }, 'context not an object')
})

t.test('project scoping of the token', async (t) => {
  const scopedNames = names(await frontend(scoped))
  t.notOk(scopedNames.includes('fe-q'), 'a flag of another project is not served')
  const all = names(await frontend(everything))
  t.ok(all.includes('fe-q') && all.includes('fe-on'), 'an all-projects token sees both')
  const onlyQ = names(await frontend(await frontendToken([Q])))
  t.same(onlyQ, ['fe-q'])
})

t.test('CORS', async (t) => {
  const origin = 'https://app.example.com'
  const res = await frontend(scoped, '', { origin })
  expectStatus(t, res, 200, 'GET with Origin')
  t.equal(res.headers.get('access-control-allow-origin'), origin, 'allow-origin')
  t.match(res.headers.get('access-control-expose-headers') ?? '', /etag/i, 'ETag exposed')
  const preflight = await request(server, {
    method: 'OPTIONS',
    path: '/api/frontend',
    token: null,
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type' },
  })
  t.equal(preflight.status, 204, 'preflight 204')
  t.equal(preflight.headers.get('access-control-allow-origin'), origin)
  t.match(preflight.headers.get('access-control-allow-methods') ?? '', /GET/)
  t.match(preflight.headers.get('access-control-allow-methods') ?? '', /POST/)
  t.match((preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase(), /authorization/)
  const refused = await frontend(null, '', { origin })
  t.equal(refused.status, 401)
  // Auth errors are sent before the route's CORS headers are attached (src/http/server.ts, outside this suite's files).
  t.equal(refused.headers.get('access-control-allow-origin'), origin, 'CORS headers on an error too')
})

t.test('other credentials are refused', async (t) => {
  expectError(t, await frontend(null), { status: 401 }, 'no token')
  expectError(t, await frontend('*:development.not-a-real-token'), { status: 401 }, 'an unknown token')
  expectError(t, await frontend(await clientToken(server, [P])), { status: 403 }, 'a client token')
  expectError(t, await frontend(await clientToken(server, [P], 'development', 'backend')), { status: 403 }, 'a backend token')
  expectError(t, await frontend(server.adminToken), { status: 403 }, 'the admin token')
  expectError(t, await api(server, 'GET', '/api/client/features', undefined, scoped), { status: 403 }, 'a frontend token on the client API')
})

t.test('client endpoints', async (t) => {
  const metrics = await request(server, {
    method: 'POST',
    path: '/api/frontend/client/metrics',
    token: scoped,
    body: { appName: 'web', instanceId: 'i1', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: { 'fe-on': { yes: 1, no: 0 } } } },
  })
  expectStatus(t, metrics, 200, 'metrics')
  const register = await request(server, {
    method: 'POST',
    path: '/api/frontend/client/register',
    token: scoped,
    body: { appName: 'web', instanceId: 'i1', interval: 1000, started: new Date().toISOString(), strategies: [] },
  })
  expectStatus(t, register, 200, 'register')
  expectError(t, await request(server, { method: 'GET', path: '/api/frontend/client/features', token: scoped }), { status: 405, name: 'NotImplementedError', message: 'The frontend API does not support this endpoint.' }, 'client/features')
  expectError(t, await request(server, { method: 'POST', path: '/api/frontend/client/metrics', token: null, body: {} }), { status: 401 }, 'metrics without a token')
})

t.test('ETag and If-None-Match', async (t) => {
  const first = await frontend(scoped, '?userId=alice')
  const etag = first.headers.get('etag')
  t.ok(etag, 'an ETag')
  const cached = await frontend(scoped, '?userId=alice', { 'if-none-match': etag! })
  t.equal(cached.status, 304, '304 for the same answer')
  t.equal(cached.text, '', 'no body')
  const other = await frontend(scoped, '?userId=bob', { 'if-none-match': etag! })
  t.equal(other.status, 200, 'a different answer is sent')
  await createEnabledFeature(server, P, 'fe-late')
  const changed = await frontend(scoped, '?userId=alice', { 'if-none-match': etag! })
  t.equal(changed.status, 200, 'a change invalidates the ETag')
  t.ok(names(changed).includes('fe-late'))
  t.not(changed.headers.get('etag'), etag)
})

t.test('a repeated context is answered again after a flag changes, and a change of context is a new answer', async (t) => {
  const post = (context: Record<string, string>) => request(server, { method: 'POST', path: '/api/frontend', token: scoped, body: { context } })
  const first = await post({ userId: 'carol', sessionId: 's-1' })
  const again = await post({ userId: 'carol', sessionId: 's-1' })
  t.same(names(again), names(first))
  t.equal(again.headers.get('etag'), first.headers.get('etag'))
  t.notOk(names(first).includes('fe-after-cache'))
  await createEnabledFeature(server, P, 'fe-after-cache')
  t.ok(names(await post({ userId: 'carol', sessionId: 's-1' })).includes('fe-after-cache'), 'the new flag is in the next answer')
  t.ok(names(await post({ userId: 'alice', sessionId: 's-1' })).includes('fe-user'), 'another userId, another answer')
  t.notOk(names(await post({ userId: 'carol', sessionId: 's-1' })).includes('fe-user'))
})

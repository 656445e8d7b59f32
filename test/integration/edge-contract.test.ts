// This server as the upstream of Unleash Edge. Edge cannot be built here, so each endpoint Edge calls is
// checked against what Edge's published source sends and expects (crates/oss/unleash-edge-http-client):
// the same paths, headers and bodies, and the statuses Edge acts on.
import t from 'tap'
import {
  api,
  clientToken,
  createApiToken,
  createEnabledFeature,
  createProject,
  disableFeature,
  expectOk,
  getFeature,
  request,
  type ServerRef,
} from '../helpers/admin-api.js'
import { eventually } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'
import { openStream } from '../helpers/sse.js'

// Every call from Edge carries these (new_reqwest_client's default headers and user agent).
const edgeHeaders = {
  'unleash-appname': 'edge-under-test',
  'unleash-instanceid': 'edge-instance-1',
  'unleash-connection-id': '01J00000000000000000000000',
  'unleash-client-spec': '5.2.0',
  'user-agent': 'unleash-edge-19.6.0',
}
const edgeCall = (server: ServerRef, method: string, path: string, token: string | null, body?: unknown, headers: Record<string, string> = {}) =>
  request(server, { method, path, token, body, headers: { ...edgeHeaders, ...headers } })

t.test('POST /edge/validate, with no Authorization header, answers only the valid tokens with their scope', async (t) => {
  const server = await startTestServer(t)
  expectOk(await createProject(server, { id: 'shop', name: 'shop' }), 'project')
  const client = await clientToken(server, ['shop'], 'production')
  const frontend = await clientToken(server, ['*'], 'development', 'frontend')
  const expired = expectOk(
    await createApiToken(server, { tokenName: 'old', type: 'client', environment: 'development', projects: ['*'], expiresAt: new Date(Date.now() + 300).toISOString() }),
    'expiring token',
  ).body.secret
  await new Promise((r) => setTimeout(r, 400))
  const res = await edgeCall(server, 'POST', '/edge/validate', null, { tokens: [client, frontend, expired, '*:development.not-a-token'] })
  t.equal(res.status, 200)
  t.same(res.body, {
    tokens: [
      { token: client, type: 'client', environment: 'production', projects: ['shop'] },
      { token: frontend, type: 'frontend', environment: 'development', projects: ['*'] },
    ],
  })
  for (const token of res.body.tokens) t.ok(['client', 'backend', 'frontend', 'admin'].includes(token.type), `type ${token.type} is one Edge knows`)
  const none = await edgeCall(server, 'POST', '/edge/validate', null, { tokens: ['nope'] })
  t.same([none.status, none.body], [200, { tokens: [] }], 'none valid: an empty list (Edge then exits)')
  const bad = await edgeCall(server, 'POST', '/edge/validate', null, { tokens: 'nope' })
  t.equal(bad.status, 400)
  t.match(bad.body.message, /tokens/)
})

t.test('GET /api/client/features as Edge polls it: project on every flag, meta revision, ETag and 304', async (t) => {
  const server = await startTestServer(t)
  expectOk(await createProject(server, { id: 'shop', name: 'shop' }), 'project')
  await createEnabledFeature(server, 'default', 'a')
  await createEnabledFeature(server, 'shop', 'b')
  const token = await clientToken(server, ['*'])
  const first = await edgeCall(server, 'GET', '/api/client/features', token, undefined, { 'unleash-interval': '15000' })
  t.equal(first.status, 200)
  t.same(first.body.features.map((f: { name: string; project: string }) => [f.name, f.project]), [['a', 'default'], ['b', 'shop']], 'Edge merges per token by project')
  t.type(first.body.meta.revisionId, 'number')
  const etag = first.headers.get('etag')!
  t.ok(etag, 'an ETag')
  const again = await edgeCall(server, 'GET', '/api/client/features', token, undefined, { 'if-none-match': etag, 'unleash-interval': '15000' })
  t.equal(again.status, 304)
  t.equal((await edgeCall(server, 'GET', '/api/client/features', '*:development.unknown')).status, 401, '401: Edge drops the token')
  const frontend = await clientToken(server, ['*'], 'development', 'frontend')
  t.equal((await edgeCall(server, 'GET', '/api/client/features', frontend)).status, 403, '403: Edge drops the token')
})

t.test('POST /api/client/register from Edge is 2xx and Edge shows up as an application', async (t) => {
  const server = await startTestServer(t)
  const token = await clientToken(server, ['*'])
  const res = await edgeCall(server, 'POST', '/api/client/register', token, {
    appName: 'downstream-app', instanceId: 'sdk-1', connectVia: [{ appName: 'edge-under-test', instanceId: 'edge-instance-1' }],
    environment: 'development', interval: 15000, sdkVersion: 'unleash-node-sdk:6.12.1', started: new Date().toISOString(), strategies: ['default'],
  })
  t.ok(res.status >= 200 && res.status < 300, `2xx (got ${res.status})`)
  const apps = (await api(server, 'GET', '/api/admin/metrics/applications')).body.applications
  const edge = apps.find((a: { appName: string }) => a.appName === 'edge-under-test')
  t.ok(edge, 'Edge is recorded from its headers')
  t.equal(edge.instances[0].instanceId, 'edge-instance-1')
  t.match(edge.instances[0].sdkVersion, /^unleash-edge-/)
  t.ok(apps.some((a: { appName: string }) => a.appName === 'downstream-app'), 'and the SDK it registered for')
})

t.test('POST /api/client/metrics/bulk folds Edge batches like /api/client/metrics', async (t) => {
  const server = await startTestServer(t, { env: { METRICS_FLUSH_MS: '50', MAX_BODY_BYTES: '20000' } })
  await createEnabledFeature(server, 'default', 'counted')
  await createEnabledFeature(server, 'default', 'unused')
  const token = await clientToken(server, ['*'])
  const now = new Date().toISOString()
  const res = await edgeCall(server, 'POST', '/api/client/metrics/bulk', token, {
    applications: [{ appName: 'downstream-app', instanceId: 'sdk-1', environment: 'development', interval: 15000, started: now, strategies: ['default'], sdkVersion: 'unleash-node-sdk:6.12.1' }],
    metrics: [
      { featureName: 'counted', appName: 'downstream-app', environment: 'development', timestamp: now, yes: 3, no: 1, variants: {} },
      { featureName: 'unused', appName: 'downstream-app', environment: 'development', timestamp: now, yes: 0, no: 0, variants: {} },
    ],
  })
  t.ok(res.status >= 200 && res.status < 300, `2xx (got ${res.status})`)
  const seen = await eventually(async () => (await getFeature(server, 'default', 'counted')).body.lastSeenAt, 20_000)
  t.ok(seen, 'the evaluated flag is seen')
  t.equal((await getFeature(server, 'default', 'unused')).body.lastSeenAt, null, 'a flag with no counts is not')
  const apps = (await api(server, 'GET', '/api/admin/metrics/applications')).body.applications.map((a: { appName: string }) => a.appName)
  t.ok(apps.includes('downstream-app') && apps.includes('edge-under-test'), 'the batch applications and Edge itself are recorded')

  const bad = await edgeCall(server, 'POST', '/api/client/metrics/bulk', token, { metrics: [{ featureName: 'x', yes: -1 }] })
  t.equal(bad.status, 400, '400: Edge drops the batch')
  const big = await edgeCall(server, 'POST', '/api/client/metrics/bulk', token, { metrics: [], applications: [], pad: 'x'.repeat(30_000) })
  t.equal(big.status, 413, '413: Edge drops the batch')
  t.equal((await edgeCall(server, 'POST', '/api/client/metrics/edge', token, {})).status, 404, 'Edge instance data: 404, which Edge tolerates')
})

t.test('the delta and the stream are shaped for Edge to follow', async (t) => {
  const server = await startTestServer(t)
  await createEnabledFeature(server, 'default', 'a')
  const token = await clientToken(server, ['*'])
  const delta = await edgeCall(server, 'GET', '/api/client/delta', token)
  const etag = delta.headers.get('etag')!
  t.match(etag, /^"\d+"$/, 'ETag "<revision>", a number')
  t.ok(Number(etag.slice(1, -1)) < 2 ** 32, 'event ids fit in a u32')
  t.ok(Array.isArray(delta.body.events[0].segments), 'a hydration always has segments')
  expectOk(await disableFeature(server, 'default', 'a', 'development'), 'disable')
  t.equal((await edgeCall(server, 'GET', '/api/client/delta', token, undefined, { 'if-none-match': etag })).body.events[0].type, 'feature-updated')
  const stream = await openStream(t, server.baseUrl, '/api/client/streaming', { ...edgeHeaders, authorization: token })
  const connected = await stream.next((f) => f.event === 'unleash-connected')
  t.ok(Number(connected.id) < 2 ** 32)
})

t.test('the default keep-alive is at least every 30 s', async (t) => {
  const { loadConfig } = await import('../../src/config.js')
  const config = loadConfig({})
  t.ok(config.streamingHeartbeatMs > 0 && config.streamingHeartbeatMs <= 30_000, `every ${config.streamingHeartbeatMs} ms`)
})

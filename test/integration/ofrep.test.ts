import t from 'tap'
import { OpenFeature } from '@openfeature/server-sdk'
import { OFREPProvider } from '@openfeature/ofrep-provider'
import { api, clientToken, createEnabledFeature, createFeature, createProject, disableFeature, expectOk, request } from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

// The OpenFeature Remote Evaluation Protocol, driven by OpenFeature's own Node provider
// (@openfeature/ofrep-provider) and by plain HTTP.
const server = await startTestServer(t)
const P = 'ofrep'
const Q = 'ofrep-other'
expectOk(await createProject(server, { id: P, name: 'OFREP' }), 'project')
expectOk(await createProject(server, { id: Q, name: 'Other' }), 'other project')
const frontend = await clientToken(server, [P], 'development', 'frontend')
const client = await clientToken(server, [P], 'development', 'client')

const variant = (name: string, payload?: { type: string; value: string }) => ({ name, weight: 1000, weightType: 'variable', stickiness: 'default', ...(payload ? { payload } : {}) })
const rollout = (groupId: string, variants: unknown[]) => ({ name: 'flexibleRollout', parameters: { rollout: '100', stickiness: 'default', groupId }, variants })
await createEnabledFeature(server, P, 'of-bool')
await createEnabledFeature(server, P, 'of-alice', 'development', { name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice'] }] })
await createEnabledFeature(server, P, 'of-plan', 'development', { name: 'default', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }] })
await createEnabledFeature(server, P, 'of-string', 'development', rollout('of-string', [variant('blue', { type: 'string', value: 'blue' })]))
await createEnabledFeature(server, P, 'of-number', 'development', rollout('of-number', [variant('n', { type: 'number', value: '42' })]))
await createEnabledFeature(server, P, 'of-json', 'development', rollout('of-json', [variant('j', { type: 'json', value: '{"limit":5,"tags":["a"]}' })]))
await createEnabledFeature(server, P, 'of-off-string', 'development', rollout('of-off-string', [variant('x', { type: 'string', value: 'x' })]))
expectOk(await disableFeature(server, P, 'of-off-string', 'development'), 'turn of-off-string off')
expectOk(await createFeature(server, P, 'of-off'), 'of-off (never enabled)')
await createEnabledFeature(server, Q, 'of-elsewhere')

OpenFeature.setProvider('ofrep', new OFREPProvider({ baseUrl: server.baseUrl, headers: { Authorization: frontend } }))
const of = OpenFeature.getClient('ofrep')
t.teardown(() => OpenFeature.close())

t.test('the OpenFeature Node provider: booleans, targeting by targetingKey and by a context field', async (t) => {
  t.match(await of.getBooleanDetails('of-bool', false, { targetingKey: 'u1' }), { value: true, reason: 'TARGETING_MATCH' })
  t.match(await of.getBooleanDetails('of-off', true, { targetingKey: 'u1' }), { value: false, reason: 'DISABLED' }, 'off in development')
  t.equal(await of.getBooleanValue('of-alice', false, { targetingKey: 'alice' }), true, 'targetingKey is the userId')
  t.match(await of.getBooleanDetails('of-alice', true, { targetingKey: 'bob' }), { value: false, reason: 'DEFAULT' }, 'no strategy matched')
  t.equal(await of.getBooleanValue('of-alice', false, { targetingKey: 'bob', userId: 'alice' }), true, "the context's own userId wins")
  t.equal(await of.getBooleanValue('of-plan', false, { targetingKey: 'u1', plan: 'pro' }), true, 'another field is a context field')
  t.equal(await of.getBooleanValue('of-plan', true, { targetingKey: 'u1', plan: 'free' }), false)
})

t.test("the OpenFeature Node provider: a variant's payload as a string, a number and an object", async (t) => {
  t.match(await of.getStringDetails('of-string', 'none', { targetingKey: 'u1' }), { value: 'blue', variant: 'blue', reason: 'TARGETING_MATCH' })
  t.equal(await of.getNumberValue('of-number', 0, { targetingKey: 'u1' }), 42)
  t.same(await of.getObjectValue('of-json', {}, { targetingKey: 'u1' }), { limit: 5, tags: ['a'] })
  // This provider release checks the value's type before it reads the reason: a flag that leaves the value
  // to the code default gives the default (the web provider, below in plain HTTP, also keeps DISABLED).
  t.equal(await of.getStringValue('of-off-string', 'fallback', { targetingKey: 'u1' }), 'fallback', 'a disabled flag with variants gives the default')
})

t.test('the OpenFeature Node provider: an unknown flag and a flag out of the token scope are FLAG_NOT_FOUND', async (t) => {
  t.match(await of.getBooleanDetails('of-nothing', true, { targetingKey: 'u1' }), { value: true, errorCode: 'FLAG_NOT_FOUND' })
  t.match(await of.getBooleanDetails('of-elsewhere', false, { targetingKey: 'u1' }), { value: false, errorCode: 'FLAG_NOT_FOUND' }, 'in another project')
})

const evaluate = (path: string, token: string | null, body: unknown, headers: Record<string, string> = {}) =>
  request(server, { method: 'POST', path: `/ofrep/v1/evaluate/flags${path}`, token, body, headers })

t.test('single evaluation over HTTP: the answer, the code default, tokens and errors', async (t) => {
  const one = await evaluate('/of-string', client, { context: { targetingKey: 'u1' } })
  t.equal(one.status, 200, 'a client token is taken')
  t.same(one.body, { key: 'of-string', value: 'blue', variant: 'blue', reason: 'TARGETING_MATCH', metadata: { project: P } })
  t.same((await evaluate('/of-off-string', frontend, { context: {} })).body, { key: 'of-off-string', reason: 'DISABLED', metadata: { project: P } }, 'no value: the code default')
  t.equal((await evaluate('/of-bool', `Bearer ${frontend}`, { context: {} })).status, 200, 'Bearer <token>')
  t.equal((await evaluate('/of-bool', null, { context: {} })).status, 401, 'no token')
  t.equal((await evaluate('/of-bool', server.adminToken, { context: {} })).status, 403, 'an admin token is not an SDK token')
  const missing = await evaluate('/of-nothing', frontend, { context: {} })
  t.same([missing.status, missing.body], [404, { key: 'of-nothing', errorCode: 'FLAG_NOT_FOUND', errorDetails: "Flag 'of-nothing' was not found" }])
  const broken = await request(server, { method: 'POST', path: '/ofrep/v1/evaluate/flags/of-bool', token: frontend, body: '{"context":', headers: { 'content-type': 'application/json' } })
  t.same([broken.status, broken.body.key, broken.body.errorCode], [400, 'of-bool', 'PARSE_ERROR'])
  const invalid = await evaluate('/of-bool', frontend, { context: 'alice' })
  t.same([invalid.status, invalid.body.errorCode], [400, 'INVALID_CONTEXT'])
  t.match(invalid.body.errorDetails, /context/)
})

t.test('single evaluations are counted as metrics: the flag is seen and its yes/no counted', async (t) => {
  await evaluate('/of-plan', frontend, { context: { targetingKey: 'u1', plan: 'pro', appName: 'shop' } })
  await evaluate('/of-plan', frontend, { context: { targetingKey: 'u1', plan: 'free', appName: 'shop' } })
  const summary = await api(server, 'GET', '/api/admin/client-metrics/features/of-plan')
  // With the two of the provider test above, whose context names no appName (counted as "ofrep").
  t.match(summary.body, { seenApplications: ['ofrep', 'shop'], lastHourUsage: [{ environment: 'development', yes: 2, no: 2 }] })
})

t.test('bulk evaluation: every flag in scope by name, an ETag, 304, and a change seen', async (t) => {
  const first = await evaluate('', frontend, { context: { targetingKey: 'alice', sessionId: 's1' } })
  t.equal(first.status, 200)
  const flags = first.body.flags as { key: string; value?: unknown; reason: string }[]
  t.same(flags.map((f) => f.key), ['of-alice', 'of-bool', 'of-json', 'of-number', 'of-off', 'of-off-string', 'of-plan', 'of-string'], "the token's project only, by name")
  t.same(flags.find((f) => f.key === 'of-alice'), { key: 'of-alice', value: true, reason: 'TARGETING_MATCH', metadata: { project: P } })
  const etag = first.headers.get('etag')!
  t.ok(etag, 'an ETag')
  t.equal((await evaluate('', frontend, { context: { targetingKey: 'alice', sessionId: 's1' } }, { 'if-none-match': etag })).status, 304, 'the same answer: 304')
  t.equal((await evaluate('', frontend, { context: { targetingKey: 'bob', sessionId: 's1' } }, { 'if-none-match': etag })).status, 200, 'another context: 200')
  expectOk(await disableFeature(server, P, 'of-bool', 'development'), 'turn of-bool off')
  const changed = await evaluate('', frontend, { context: { targetingKey: 'alice', sessionId: 's1' } }, { 'if-none-match': etag })
  t.equal(changed.status, 200, 'a change: 200')
  t.same((changed.body.flags as { key: string }[]).find((f) => f.key === 'of-bool'), { key: 'of-bool', value: false, reason: 'DISABLED', metadata: { project: P } })
  t.not(changed.headers.get('etag'), etag, 'a new ETag')
  t.equal((await evaluate('', null, { context: {} })).status, 401, 'no token')
})

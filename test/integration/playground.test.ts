import net from 'node:net'
import t from 'tap'
import {
  addStrategy,
  api,
  clientToken,
  createEnabledFeature,
  createFeature,
  createProject,
  createSegment,
  enableFeature,
  expectOk,
} from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startSdk } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'

// POST /api/admin/playground (INTERFACE 4.4, SEMANTICS 6).
const server = await startTestServer(t)
const P = 'pg'
const Q = 'pg-other'
expectOk(await createProject(server, { id: P, name: 'Playground' }), 'create project')
expectOk(await createProject(server, { id: Q, name: 'Other' }), 'create other project')

const segment = expectOk(await createSegment(server, { name: 'pg-seg', constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'] }] }), 'segment').body
const strategyVariants = [
  { name: 'sv-a', weight: 500, weightType: 'variable', stickiness: 'userId', payload: { type: 'string', value: 'A' } },
  { name: 'sv-b', weight: 500, weightType: 'variable', stickiness: 'userId' },
]
// pg-rich: one strategy with a constraint, a segment and variants.
await createEnabledFeature(server, P, 'pg-rich', 'development', {
  name: 'flexibleRollout',
  title: 'Rich',
  parameters: { rollout: '100', stickiness: 'userId', groupId: 'pg-rich' },
  constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob', 'carol'] }],
  segments: [segment.id],
  variants: strategyVariants,
})
const richStrategyId = (await api(server, 'GET', `/api/admin/projects/${P}/features/pg-rich/environments/development/strategies`)).body[0].id
// pg-custom: only a strategy of a custom type the server cannot evaluate.
expectOk(await api(server, 'POST', '/api/admin/strategies', { name: 'pg-custom-type', parameters: [] }), 'custom type')
await createEnabledFeature(server, P, 'pg-custom', 'development', { name: 'pg-custom-type', parameters: { x: '1' } })
// pg-disabled: a disabled strategy next to an enabled default one.
await createEnabledFeature(server, P, 'pg-disabled', 'development', { name: 'default', disabled: true })
// pg-off: off in development.
expectOk(await createFeature(server, P, 'pg-off'), 'pg-off')
expectOk(await addStrategy(server, P, 'pg-off', 'development', { name: 'default' }), 'pg-off strategy')
// pg-child: on, but its parent pg-off is off.
await createEnabledFeature(server, P, 'pg-child')
expectOk(await api(server, 'POST', `/api/admin/projects/${P}/features/pg-child/dependencies`, { feature: 'pg-off' }), 'dependency')
// pg-envvar: env variants with userId stickiness.
await createEnabledFeature(server, P, 'pg-envvar')
expectOk(await api(server, 'PUT', `/api/admin/projects/${P}/features/pg-envvar/environments/development/variants`, [
  { name: 'ev-x', weight: 0, stickiness: 'userId', payload: { type: 'json', value: '{"x":1}' } },
  { name: 'ev-y', weight: 0, stickiness: 'userId' },
  { name: 'ev-z', weight: 0, stickiness: 'userId' },
]), 'env variants')
// pg-rollout: a 50% rollout on userId.
await createEnabledFeature(server, P, 'pg-rollout', 'development', { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'userId', groupId: 'g' } })
await createEnabledFeature(server, Q, 'pg-q-flag')

const playground = (body: unknown) => api(server, 'POST', '/api/admin/playground', body)
const featureOf = (res: any, name: string) => (res.body.features as any[]).find((f) => f.name === name)

t.test('the response shape', async (t) => {
  const body = { environment: 'development', projects: [P], context: { appName: 'pg-app', userId: 'alice', properties: { plan: 'pro' }, extraKey: 'x' } }
  const res = await playground(body)
  if (!expectStatus(t, res, 200, 'playground')) return
  t.same(res.body.input, body, 'the input is echoed')
  t.type(res.body.features, Array)
  t.same((res.body.features as any[]).map((f) => f.projectId).filter((p) => p !== P), [], 'only the requested project')

  const rich = featureOf(res, 'pg-rich')
  t.match(rich, {
    name: 'pg-rich',
    projectId: P,
    isEnabled: true,
    isEnabledInCurrentEnvironment: true,
    hasUnsatisfiedDependency: false,
    strategies: { result: true },
    variant: { enabled: true, feature_enabled: true },
  })
  t.ok(['sv-a', 'sv-b'].includes(rich.variant.name), 'a strategy variant')
  t.same(rich.variants, strategyVariants, 'variants: the winning strategy variants')
  t.equal(rich.strategies.data.length, 1)
  const data = rich.strategies.data[0]
  t.match(data, {
    name: 'flexibleRollout',
    id: richStrategyId,
    title: 'Rich',
    disabled: false,
    parameters: { rollout: '100', stickiness: 'userId', groupId: 'pg-rich' },
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice', 'bob', 'carol'], result: true }],
    segments: [{ id: segment.id, name: 'pg-seg', result: true, constraints: [{ contextName: 'plan', operator: 'IN', values: ['pro'], result: true }] }],
    result: { evaluationStatus: 'complete', enabled: true, variant: { name: rich.variant.name, enabled: true } },
    links: { edit: `/projects/${P}/features/pg-rich/strategies/edit?environmentId=development&strategyId=${richStrategyId}` },
  }, 'per-strategy data')

  const custom = featureOf(res, 'pg-custom')
  t.match(custom, { isEnabled: false, isEnabledInCurrentEnvironment: true, strategies: { result: 'unknown' }, variant: { name: 'disabled', enabled: false } }, 'unknown custom strategy')
  t.match(custom.strategies.data[0], { name: 'pg-custom-type', parameters: { x: '1' }, result: { evaluationStatus: 'incomplete', enabled: 'unknown' } })

  const disabled = featureOf(res, 'pg-disabled')
  t.match(disabled, { isEnabled: true, strategies: { result: true } }, 'the enabled strategy wins')
  const unevaluated = disabled.strategies.data.find((d: any) => d.disabled === true)
  t.match(unevaluated, { name: 'default', disabled: true, result: { evaluationStatus: 'unevaluated', enabled: 'unknown' } }, 'the disabled strategy is unevaluated')
  t.ok(disabled.strategies.data.some((d: any) => d.disabled === false && d.result.evaluationStatus === 'complete' && d.result.enabled === true), 'the other one is complete')

  const off = featureOf(res, 'pg-off')
  t.match(off, { isEnabledInCurrentEnvironment: false, isEnabled: false, hasUnsatisfiedDependency: false, variant: { name: 'disabled', enabled: false, feature_enabled: false }, variants: [] }, 'off in the environment')

  const child = featureOf(res, 'pg-child')
  t.match(child, { isEnabledInCurrentEnvironment: true, hasUnsatisfiedDependency: true, isEnabled: false, strategies: { result: true } }, 'unsatisfied dependency')

  const envvar = featureOf(res, 'pg-envvar')
  t.match(envvar, { isEnabled: true, variant: { enabled: true, feature_enabled: true } })
  t.ok(['ev-x', 'ev-y', 'ev-z'].includes(envvar.variant.name), 'an environment variant')
  t.same(envvar.variants.map((v: any) => v.name), ['ev-x', 'ev-y', 'ev-z'], 'variants: the environment variants')
  t.same(envvar.variants.map((v: any) => v.weight), [334, 333, 333])
})

t.test('failing constraints and segments are each shown', async (t) => {
  const res = await playground({ environment: 'development', projects: [P], context: { appName: 'pg-app', userId: 'dave', properties: { plan: 'free' } } })
  const rich = featureOf(res, 'pg-rich')
  t.match(rich, { isEnabled: false, strategies: { result: false }, variant: { name: 'disabled', enabled: false } })
  t.match(rich.strategies.data[0], {
    constraints: [{ result: false }],
    segments: [{ result: false, constraints: [{ result: false }] }],
    result: { evaluationStatus: 'complete', enabled: false },
  })
  // Unleash 8.2 side by side: a false strategy still shows the variant it would select.
  t.match(rich.strategies.data[0].result, { variant: { enabled: true }, variants: Array }, 'the variant of a false strategy is shown')
})

t.test('the projects filter', async (t) => {
  const all = await playground({ environment: 'development', context: { appName: 'a' } })
  expectStatus(t, all, 200, 'no projects')
  t.ok(featureOf(all, 'pg-q-flag') && featureOf(all, 'pg-rich'), 'all projects by default')
  const star = await playground({ environment: 'development', projects: '*', context: { appName: 'a' } })
  t.ok(featureOf(star, 'pg-q-flag') && featureOf(star, 'pg-rich'), '"*" is all projects')
  const onlyQ = await playground({ environment: 'development', projects: [Q], context: { appName: 'a' } })
  t.same((onlyQ.body.features as any[]).map((f) => f.name), ['pg-q-flag'], 'only Q')
  const none = await playground({ environment: 'development', projects: ['nope'], context: { appName: 'a' } })
  t.same(none.body.features, [], 'an unknown project gives nothing')
  const production = await playground({ environment: 'production', projects: [P], context: { appName: 'a' } })
  t.ok((production.body.features as any[]).every((f) => f.isEnabledInCurrentEnvironment === false), 'nothing is on in production')
})

t.test('validation', async (t) => {
  const cases: [string, unknown, RegExp][] = [
    ['missing appName', { environment: 'development', context: {} }, /appName/],
    ['empty appName', { environment: 'development', context: { appName: '' } }, /appName/],
    ['bad currentTime', { environment: 'development', context: { appName: 'a', currentTime: 'yesterday' } }, /currentTime/],
    ['missing context', { environment: 'development' }, /context/],
    ['missing environment', { context: { appName: 'a' } }, /environment/],
    ['projects of the wrong type', { environment: 'development', projects: 'pg', context: { appName: 'a' } }, /projects/],
  ]
  for (const [what, body, message] of cases) expectError(t, await playground(body), { status: 400, message }, what)
  expectStatus(t, await playground({ environment: 'development', context: { appName: 'a', currentTime: '2024-05-01T10:00:00Z' } }), 200, 'a valid currentTime')
  expectError(t, await api(server, 'POST', '/api/admin/playground', { environment: 'development', context: { appName: 'a' } }, null), { status: 401 }, 'no token')
})

t.test('results equal the real SDK for several contexts', async (t) => {
  const sdk = await startSdk(t, server.baseUrl, await clientToken(server, [P]))
  const contexts = [
    { userId: 'alice', properties: { plan: 'pro' } },
    { userId: 'bob', properties: { plan: 'pro' } },
    { userId: 'bob', properties: { plan: 'free' } },
    { userId: 'carol' },
    { userId: 'user-17' },
    { userId: 'user-42', properties: { plan: 'pro' } },
  ]
  const names = ['pg-rich', 'pg-custom', 'pg-disabled', 'pg-off', 'pg-child', 'pg-envvar', 'pg-rollout']
  let rolloutOn = 0
  for (const context of contexts) {
    const res = await playground({ environment: 'development', projects: [P], context: { appName: 'pg-app', ...context } })
    for (const name of names) {
      const feature = featureOf(res, name)
      const enabled = sdk.isEnabled(name, context)
      const variant = sdk.getVariant(name, context)
      t.equal(feature.isEnabled, enabled, `${name} ${JSON.stringify(context)}: isEnabled ${enabled}`)
      t.equal(feature.variant.name, variant.name, `${name} ${JSON.stringify(context)}: variant ${variant.name}`)
      t.same(feature.variant.payload, variant.payload, `${name}: same payload`)
      if (name === 'pg-rollout' && enabled) rolloutOn++
    }
  }
  t.ok(rolloutOn > 0 && rolloutOn < contexts.length, `the 50% rollout splits the users (${rolloutOn}/${contexts.length})`)
  // And after a change the playground sees it at once.
  expectOk(await enableFeature(server, P, 'pg-off', 'development'), 'pg-off on')
  const after = await playground({ environment: 'development', projects: [P], context: { appName: 'pg-app' } })
  t.match(featureOf(after, 'pg-off'), { isEnabled: true, isEnabledInCurrentEnvironment: true })
  t.match(featureOf(after, 'pg-child'), { hasUnsatisfiedDependency: false, isEnabled: true })
})

t.test('an unknown environment is a 404 before any evaluator is built', async (t) => {
  const res = await playground({ environment: 'no-such-env', context: { appName: 'a' } })
  t.equal(res.status, 404)
  t.equal(res.body.name, 'NotFoundError')
  t.match(res.body.message, /no-such-env/)
})

// Answers of megabytes are lent a buffer the route reuses, and sent as the socket takes them: one whose
// client has not read it yet is held, and the answers made meanwhile go to other buffers.
t.test('an answer its client has not read yet is not written over by the answers made after it', async (t) => {
  const L = 'pg-large'
  expectOk(await createProject(server, { id: L, name: 'Large' }), 'create project')
  // 200 flags of 200 KB of user ids each: an answer of about 40 MB, more than the sockets between
  // server and client take before it is read (a few MB each way on loopback).
  const ids = Array.from({ length: 20_000 }, (_, i) => `user-${String(i).padStart(5, '0')}`).join(',')
  for (let i = 0; i < 200; i++) {
    await createEnabledFeature(server, L, `pg-large-${String(i).padStart(3, '0')}`, 'development', {
      name: 'flexibleRollout',
      parameters: { rollout: '50', stickiness: 'userId', groupId: `g${i}` },
      constraints: [{ contextName: 'userId', operator: 'NOT_IN', values: [`not-${i}`] }],
    })
    expectOk(await addStrategy(server, L, `pg-large-${String(i).padStart(3, '0')}`, 'development', { name: 'userWithId', parameters: { userIds: ids } }), 'ids')
  }
  const body = (userId: string) => JSON.stringify({ environment: 'development', projects: [L], context: { appName: 'pg-app', userId } })
  const ask = async (userId: string) => {
    const res = await fetch(`${server.baseUrl}/api/admin/playground`, { method: 'POST', headers: { authorization: server.adminToken, 'content-type': 'application/json' }, body: body(userId) })
    t.equal(res.status, 200)
    return Buffer.from(await res.arrayBuffer())
  }

  // The first client does not read until another context's answer is made.
  const held = net.connect({ host: '127.0.0.1', port: server.port })
  t.teardown(() => held.destroy())
  held.pause()
  const answered = new Promise<void>((resolve) => held.once('readable', () => resolve()))
  const request = body('user-0001')
  held.write(`POST /api/admin/playground HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${server.adminToken}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(request)}\r\n\r\n${request}`)
  await answered
  const other = await ask('user-0002')

  const chunks: Buffer[] = []
  const whole = new Promise<Buffer>((resolve) => {
    const take = () => {
      for (let chunk: Buffer | null; (chunk = held.read() as Buffer | null) !== null; ) chunks.push(chunk)
      const text = Buffer.concat(chunks)
      const head = text.indexOf('\r\n\r\n')
      const length = Number(/content-length: (\d+)/i.exec(text.subarray(0, head).toString())?.[1])
      if (head >= 0 && text.length - head - 4 >= length) resolve(text.subarray(head + 4, head + 4 + length))
      else held.once('readable', take)
    }
    take()
  })
  const first = await whole
  const again = await ask('user-0001')
  t.ok(first.length > 30_000_000, `an answer of ${first.length} bytes`)
  t.ok(first.equals(again), 'the held answer is byte for byte the one made again for its context')
  t.notOk(first.equals(other), 'and not the one made for the other context meanwhile')
  const parsed = JSON.parse(first.toString()) as { features: { name: string }[] }
  t.equal(parsed.features.length, 200, 'every flag of the project')
})

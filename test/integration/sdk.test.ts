import t from 'tap'
import {
  addStrategy,
  clientToken,
  createEnabledFeature,
  createFeature,
  createProject,
  disableFeature,
  enableFeature,
  expectOk,
  getFeature,
  registerClient,
  sendClientMetrics,
  api,
} from '../helpers/admin-api.js'
import { eventually, expectStatus, sleep } from '../helpers/expect.js'
import { startSdk, untilChanged, waitForEvent } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'

const flushMs = 100
const server = await startTestServer(t, { env: { METRICS_FLUSH_MS: String(flushMs) } })
const P = 'sdk'
expectOk(await createProject(server, { id: P, name: 'SDK' }), 'create project')
const token = await clientToken(server, [P])
const envOf = (feature: any, name: string) => feature.environments.find((e: any) => e.name === name)

t.test('a flag switched on with a strategy is enabled for the SDK', async (t) => {
  await createEnabledFeature(server, P, 'sdk-on')
  expectOk(await createFeature(server, P, 'sdk-off'), 'a flag left off')
  expectOk(await addStrategy(server, P, 'sdk-off', 'development'), 'strategy')
  const sdk = await startSdk(t, server.baseUrl, token)
  t.equal(sdk.isEnabled('sdk-on'), true, 'on')
  t.equal(sdk.isEnabled('sdk-off'), false, 'off: a strategy alone does not switch it on')
  t.equal(sdk.isEnabled('no-such-flag'), false, 'an unknown flag falls back to false')
  t.match(sdk.getFeatureToggleDefinition('sdk-on'), { name: 'sdk-on', enabled: true, project: P, strategies: [{ name: 'default' }] })
})

t.test('switching a flag off reaches the SDK within its refresh interval', async (t) => {
  await createEnabledFeature(server, P, 'sdk-toggle')
  const sdk = await startSdk(t, server.baseUrl, token, { refreshInterval: 150 })
  t.equal(sdk.isEnabled('sdk-toggle'), true)
  const off = untilChanged(sdk, () => !sdk.isEnabled('sdk-toggle'))
  expectStatus(t, await disableFeature(server, P, 'sdk-toggle', 'development'), 200, 'off')
  const tookOff = await off
  t.ok(tookOff < 1000, `the SDK saw it off after ${tookOff} ms`)
  const on = untilChanged(sdk, () => sdk.isEnabled('sdk-toggle'))
  expectStatus(t, await enableFeature(server, P, 'sdk-toggle', 'development'), 200, 'on')
  const tookOn = await on
  t.ok(tookOn < 1000, `and on again after ${tookOn} ms`)
})

t.test('a new flag and a new strategy reach a running SDK', async (t) => {
  const sdk = await startSdk(t, server.baseUrl, token)
  const appears = untilChanged(sdk, () => sdk.isEnabled('sdk-late', { userId: 'alice' }))
  await createEnabledFeature(server, P, 'sdk-late', 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '100' },
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['alice'] }],
  })
  await appears
  t.equal(sdk.isEnabled('sdk-late', { userId: 'alice' }), true, 'alice matches the constraint')
  t.equal(sdk.isEnabled('sdk-late', { userId: 'bob' }), false, 'bob does not')
  const widened = untilChanged(sdk, () => sdk.isEnabled('sdk-late', { userId: 'bob' }))
  expectOk(await addStrategy(server, P, 'sdk-late', 'development', { name: 'default' }), 'a second strategy')
  await widened
  t.equal(sdk.isEnabled('sdk-late', { userId: 'bob' }), true, 'strategies are ORed')
})

t.test('an environment-scoped token gives the SDK that environment', async (t) => {
  await createEnabledFeature(server, P, 'sdk-prod-only', 'production')
  const development = await startSdk(t, server.baseUrl, token)
  const production = await startSdk(t, server.baseUrl, await clientToken(server, [P], 'production'))
  t.equal(development.isEnabled('sdk-prod-only'), false, 'off in development')
  t.equal(production.isEnabled('sdk-prod-only'), true, 'on in production')
})

t.test('getVariant returns the strategy variants', async (t) => {
  await createEnabledFeature(server, P, 'sdk-variant', 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default' },
    variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{"color":"blue"}' } }],
  })
  await createEnabledFeature(server, P, 'sdk-split', 'development', {
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'default' },
    variants: [
      { name: 'left', weight: 500, weightType: 'variable', stickiness: 'userId' },
      { name: 'right', weight: 500, weightType: 'variable', stickiness: 'userId' },
    ],
  })
  expectOk(await createFeature(server, P, 'sdk-variant-off'), 'a flag left off')
  const sdk = await startSdk(t, server.baseUrl, token)
  t.match(sdk.getVariant('sdk-variant', { userId: 'u1' }), {
    name: 'blue',
    enabled: true,
    feature_enabled: true,
    payload: { type: 'json', value: '{"color":"blue"}' },
  })
  const seen = new Map<string, string>()
  for (let i = 0; i < 200; i++) seen.set(`user-${i}`, sdk.getVariant('sdk-split', { userId: `user-${i}` }).name)
  const counts = [...seen.values()].reduce<Record<string, number>>((acc, name) => ({ ...acc, [name]: (acc[name] ?? 0) + 1 }), {})
  t.same(Object.keys(counts).sort(), ['left', 'right'], 'both variants are handed out')
  t.ok(counts.left > 50 && counts.right > 50, `roughly half each (${JSON.stringify(counts)})`)
  t.ok([...seen].every(([userId, name]) => sdk.getVariant('sdk-split', { userId }).name === name), 'the same user always gets the same variant')
  t.match(sdk.getVariant('sdk-variant-off', { userId: 'u1' }), { name: 'disabled', enabled: false, feature_enabled: false }, 'a flag that is off')
  t.match(sdk.getVariant('sdk-on', { userId: 'u1' }), { name: 'disabled', enabled: false, feature_enabled: true }, 'a flag without variants')
})

t.test('SDK registration and metrics are accepted and set lastSeenAt on the flag environment', async (t) => {
  await createEnabledFeature(server, P, 'sdk-metrics')
  expectOk(await createFeature(server, P, 'sdk-unseen'), 'a flag nobody evaluates')
  const before = (await getFeature(server, P, 'sdk-metrics')).body
  t.equal(envOf(before, 'development').lastSeenAt, null, 'never seen before')
  const sdk = await startSdk(t, server.baseUrl, token, { disableMetrics: false, metricsInterval: 200, appName: 'metrics-app', synchronized: false })
  const registered = waitForEvent(sdk, 'registered', 30_000)
  await waitForEvent(sdk, 'synchronized', 30_000)
  await registered
  t.pass('the SDK registered (its register POST was answered 2xx)')
  const sent = waitForEvent<any>(sdk, 'sent', 30_000)
  for (let i = 0; i < 10; i++) sdk.isEnabled('sdk-metrics')
  const payload = await sent
  t.match(payload.bucket.toggles['sdk-metrics'], { yes: 10 }, 'the SDK sent its counts')

  const seen = await eventually(async () => envOf((await getFeature(server, P, 'sdk-metrics')).body, 'development').lastSeenAt, 20_000)
  t.match(seen, /^\d{4}-\d{2}-\d{2}T/, 'the development environment has a lastSeenAt')
  const after = (await getFeature(server, P, 'sdk-metrics')).body
  t.equal(envOf(after, 'production').lastSeenAt, null, 'production was not seen')
  t.equal(after.lastSeenAt, seen, 'the flag-level lastSeenAt follows')
  t.equal(envOf((await getFeature(server, P, 'sdk-unseen')).body, 'development').lastSeenAt, null, 'an unevaluated flag stays unseen')
  const apps = await api(server, 'GET', '/api/admin/metrics/applications')
  if (apps.status === 200) t.ok(JSON.stringify(apps.body).includes('metrics-app'), 'the application is known')
})

t.test('a flag reported again after it moved to another project is seen in its new project', async (t) => {
  // The metrics route remembers the project each reported flag was found in; a move must not lose it.
  expectOk(await createProject(server, { id: 'sdk-moved-to', name: 'Moved to' }), 'a second project')
  await createEnabledFeature(server, P, 'sdk-mover')
  const allProjects = await clientToken(server, ['*'])
  const report = (name: string) => ({ appName: 'mover-app', instanceId: 'i-1', bucket: { start: new Date().toISOString(), stop: new Date().toISOString(), toggles: { [name]: { yes: 1, no: 0 } } } })
  t.equal((await sendClientMetrics(server, allProjects, report('sdk-mover'))).status, 202)
  t.match(await eventually(async () => envOf((await getFeature(server, P, 'sdk-mover')).body, 'development').lastSeenAt, 20_000), /^\d{4}-/, 'seen in its first project')
  expectOk(await api(server, 'POST', `/api/admin/projects/${P}/features/sdk-mover/changeProject`, { newProjectId: 'sdk-moved-to' }), 'moved')
  const moved = await getFeature(server, 'sdk-moved-to', 'sdk-mover')
  const before = envOf(moved.body, 'development')?.lastSeenAt ?? null
  await sleep(20)
  t.equal((await sendClientMetrics(server, allProjects, report('sdk-mover'))).status, 202)
  const after = await eventually(async () => {
    const seen = envOf((await getFeature(server, 'sdk-moved-to', 'sdk-mover')).body, 'development')?.lastSeenAt ?? null
    return seen !== null && seen !== before ? seen : undefined
  }, 20_000)
  t.match(after, /^\d{4}-/, 'seen again in its new project')
})

t.test('register and metrics POSTs answer 202', async (t) => {
  const register = await registerClient(server, token, {
    appName: 'plain-http',
    instanceId: 'i-1',
    sdkVersion: 'unleash-client-node:6.12.1',
    strategies: ['default', 'flexibleRollout'],
    started: new Date().toISOString(),
    interval: 10000,
  })
  expectStatus(t, register, 202, 'register')
  t.equal(register.text, '', 'no body')
  const now = new Date()
  const metrics = await sendClientMetrics(server, token, {
    appName: 'plain-http',
    instanceId: 'i-1',
    bucket: { start: new Date(now.getTime() - 60_000).toISOString(), stop: now.toISOString(), toggles: { 'sdk-on': { yes: 3, no: 1, variants: {} }, 'no-such-flag': { yes: 1, no: 0 } } },
  })
  expectStatus(t, metrics, 202, 'metrics, including a flag that does not exist')
  const zero = await sendClientMetrics(server, await clientToken(server, [P], 'production'), {
    appName: 'plain-http',
    bucket: { start: now.toISOString(), stop: now.toISOString(), toggles: { 'sdk-on': { yes: 0, no: 0 } } },
  })
  expectStatus(t, zero, 202, 'metrics with zero counts')
  await sleep(50)
  t.equal(envOf((await getFeature(server, P, 'sdk-on')).body, 'production').lastSeenAt, null, 'zero counts do not mark a flag seen')
  t.match(envOf((await getFeature(server, P, 'sdk-on')).body, 'development').lastSeenAt, /^\d{4}-/, 'non-zero counts do')
})

t.test('lastSeenAt survives a restart once flushed', async (t) => {
  const own = await startTestServer(t, { env: { METRICS_FLUSH_MS: String(flushMs) } })
  expectOk(await createProject(own, { id: 'seen', name: 'Seen' }), 'project')
  await createEnabledFeature(own, 'seen', 'seen-flag')
  const ownToken = await clientToken(own, ['seen'])
  const now = new Date().toISOString()
  expectStatus(t, await sendClientMetrics(own, ownToken, { appName: 'a', bucket: { start: now, stop: now, toggles: { 'seen-flag': { yes: 1, no: 0 } } } }), 202, 'metrics')
  const seen = envOf((await getFeature(own, 'seen', 'seen-flag')).body, 'development').lastSeenAt
  t.match(seen, /^\d{4}-/)
  await sleep(flushMs * 4)
  await own.stop()
  const restarted = await startTestServer(t, { dataDir: own.dataDir, adminToken: own.adminToken })
  t.equal(envOf((await getFeature(restarted, 'seen', 'seen-flag')).body, 'development').lastSeenAt, seen, 'the same lastSeenAt after the restart')
  const sdk = await startSdk(t, restarted.baseUrl, ownToken)
  t.equal(sdk.isEnabled('seen-flag'), true, 'and the SDK still sees the flag on')
})

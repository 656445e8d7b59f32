import t from 'tap'
import {
  archiveFeature,
  clientToken,
  createFeature,
  createProject,
  enableFeature,
  addStrategy,
  expectOk,
  getFeature,
  listFeatureEvents,
  reviveFeature,
  sendClientMetrics,
} from '../helpers/admin-api.js'
import { startClockedServer, fakeClock } from '../helpers/clocked-server.js'
import { completeFeature, getLifecycle, listFeatureTypes, markStale, setFeatureTypeLifetime, uncompleteFeature } from '../helpers/curation-api.js'
import { eventually, expectError } from '../helpers/expect.js'

const clock = fakeClock('2024-03-01T10:00:00.000Z')
let server = await startClockedServer(t, { clock, env: { POTENTIALLY_STALE_CHECK_MS: '40', METRICS_FLUSH_MS: '40' } })
const P = 'life'
expectOk(await createProject(server, { id: P, name: 'Life' }), 'create project')
expectOk(await createFeature(server, P, 'rel'), 'create rel')
const devToken = await clientToken(server, [P], 'development')
const prodToken = await clientToken(server, [P], 'production')

const metrics = (token: string, toggles: Record<string, { yes: number; no: number }>) =>
  sendClientMetrics(server, token, { appName: 'shop', instanceId: 'i1', bucket: { start: clock.now().toISOString(), stop: clock.now().toISOString(), toggles } })
const stages = async (feature: string) => (await getLifecycle(server, P, feature)).body.map((s: { stage: string }) => s.stage)
const eventTypes = async (feature: string) => (await listFeatureEvents(server, feature)).body.events.map((e: { type: string }) => e.type)

t.test('lifecycle: initial → pre-live → live → completed → archived, and revive starts over', async (t) => {
  const initial = await getLifecycle(server, P, 'rel')
  t.equal(initial.status, 200)
  t.same(initial.body, [{ stage: 'initial', enteredStageAt: '2024-03-01T10:00:00.000Z' }])
  t.same((await getFeature(server, P, 'rel')).body.lifecycle, { stage: 'initial', enteredStageAt: '2024-03-01T10:00:00.000Z' })

  clock.advanceDays(1)
  expectOk(await metrics(devToken, { rel: { yes: 1, no: 2 } }), 'metrics from development')
  t.same(await stages('rel'), ['initial', 'pre-live'], 'metrics from a known environment: pre-live')
  t.same((await getFeature(server, P, 'rel')).body.lifecycle, { stage: 'pre-live', enteredStageAt: '2024-03-02T10:00:00.000Z' })

  clock.advanceDays(1)
  expectOk(await metrics(prodToken, { rel: { yes: 1, no: 0 } }), 'metrics from production while off')
  t.same(await stages('rel'), ['initial', 'pre-live'], 'production metrics while the flag is off there: not live')
  expectOk(await addStrategy(server, P, 'rel', 'production'), 'add strategy')
  expectOk(await enableFeature(server, P, 'rel', 'production'), 'enable in production')
  clock.advanceDays(1)
  expectOk(await metrics(prodToken, { rel: { yes: 5, no: 0 } }), 'metrics from production while on')
  t.same(await stages('rel'), ['initial', 'pre-live', 'live'])
  const before = (await getLifecycle(server, P, 'rel')).body
  clock.advanceDays(1)
  expectOk(await metrics(prodToken, { rel: { yes: 5, no: 0 } }), 'more metrics')
  t.same((await getLifecycle(server, P, 'rel')).body, before, 'a stage is entered once: later metrics change nothing')
  t.notOk((await eventTypes('rel')).some((type: string) => type.startsWith('client-')), 'metrics write no events')

  const completed = await completeFeature(server, P, 'rel', { status: 'kept', statusValue: 'variant-b' })
  t.equal(completed.status, 200)
  const afterComplete = (await getLifecycle(server, P, 'rel')).body
  t.same(afterComplete[afterComplete.length - 1], { stage: 'completed', status: 'kept', statusValue: 'variant-b', enteredStageAt: '2024-03-05T10:00:00.000Z' })
  t.equal((await getFeature(server, P, 'rel')).body.lifecycle.stage, 'completed')
  const [completedEvent] = (await listFeatureEvents(server, 'rel')).body.events
  t.match(completedEvent, { type: 'feature-completed', project: P, featureName: 'rel', data: { status: 'kept', statusValue: 'variant-b', kept: true } })
  expectError(t, await completeFeature(server, P, 'rel', { status: 'maybe' }), { status: 400 }, 'an unknown status')

  t.equal((await uncompleteFeature(server, P, 'rel')).status, 200)
  t.equal((await listFeatureEvents(server, 'rel')).body.events[0].type, 'feature-uncompleted')
  t.same(await stages('rel'), ['initial', 'pre-live', 'live'])

  expectOk(await archiveFeature(server, P, 'rel'), 'archive')
  t.same(await stages('rel'), ['initial', 'pre-live', 'live', 'archived'])
  clock.advanceDays(1)
  expectOk(await reviveFeature(server, 'rel'), 'revive')
  t.same((await getLifecycle(server, P, 'rel')).body, [{ stage: 'initial', enteredStageAt: '2024-03-06T10:00:00.000Z' }], 'revive wipes the stages')
  clock.advanceDays(1)
  expectOk(await metrics(devToken, { rel: { yes: 1, no: 0 } }), 'metrics after revive')
  t.same(await stages('rel'), ['initial', 'pre-live'], 'a new life records pre-live again')
})

t.test('metric-driven stages survive a restart', async (t) => {
  const before = (await getLifecycle(server, P, 'rel')).body
  server = await server.restart()
  t.same((await getLifecycle(server, P, 'rel')).body, before)
})

t.test('stale on and off for several flags: 202, events only for flags that change', async (t) => {
  expectOk(await createFeature(server, P, 'old-a'), 'create old-a')
  expectOk(await createFeature(server, P, 'old-b'), 'create old-b')
  const res = await markStale(server, P, ['old-a', 'old-b'], true)
  t.equal(res.status, 202)
  t.equal((await getFeature(server, P, 'old-a')).body.stale, true)
  t.equal((await eventTypes('old-a'))[0], 'feature-stale-on')
  expectOk(await markStale(server, P, ['old-a', 'old-b'], true), 'again')
  t.equal((await eventTypes('old-a')).filter((type: string) => type === 'feature-stale-on').length, 1, 'no second stale-on')
  expectOk(await markStale(server, P, ['old-b'], false), 'stale off')
  t.equal((await eventTypes('old-b'))[0], 'feature-stale-off')
  expectError(t, await markStale(server, P, ['ghost'], true), { status: 404 })
})

t.test('flag types', async (t) => {
  const res = await listFeatureTypes(server)
  t.equal(res.status, 200)
  t.same(
    res.body.types.map((x: { id: string; lifetimeDays: number | null }) => [x.id, x.lifetimeDays]),
    [['release', 40], ['experiment', 40], ['operational', 7], ['kill-switch', null], ['permission', null], ['sunset', 90]],
  )
  const updated = await setFeatureTypeLifetime(server, 'experiment', 10)
  t.equal(updated.status, 200)
  t.match(updated.body, { id: 'experiment', lifetimeDays: 10 })
  t.equal((await setFeatureTypeLifetime(server, 'experiment', 0)).body.lifetimeDays, null, '0 means no lifetime')
  expectError(t, await setFeatureTypeLifetime(server, 'nope', 3), { status: 404 })
  expectError(t, await setFeatureTypeLifetime(server, 'release', -1), { status: 400 })
  expectOk(await setFeatureTypeLifetime(server, 'experiment', 40), 'restore')
})

t.test('the potentially-stale job marks flags past their type lifetime', async (t) => {
  expectOk(await createFeature(server, P, { name: 'ops', type: 'operational' }), 'create ops')
  expectOk(await createFeature(server, P, { name: 'switch', type: 'kill-switch' }), 'create switch')
  t.equal((await getFeature(server, P, 'ops')).body.potentiallyStale, false)
  clock.advanceDays(8)
  const marked = await eventually(async () => (await getFeature(server, P, 'ops')).body.potentiallyStale === true)
  t.ok(marked, 'ops (7 days) is potentially stale after 8 days')
  const [event] = (await listFeatureEvents(server, 'ops')).body.events
  t.match(event, { type: 'feature-potentially-stale-on', project: P, featureName: 'ops', createdBy: 'unleash_system_user', createdByUserId: -1337 })
  t.equal((await getFeature(server, P, 'switch')).body.potentiallyStale, false, 'a kill switch never is')
  t.equal((await getFeature(server, P, 'old-a')).body.potentiallyStale, false, 'a stale flag is not potentially stale')
})

// GET /api/client/delta as unleash-client's delta polling mode (and Unleash Edge) call it.
import t from 'tap'
import {
  addStrategy,
  archiveFeature,
  clientToken,
  createEnabledFeature,
  createFeature,
  createSegment,
  disableFeature,
  enableFeature,
  expectOk,
  request,
  type ServerRef,
} from '../helpers/admin-api.js'
import { eventually } from '../helpers/expect.js'
import { startSdk } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'

const spec = { 'Unleash-Client-Spec': '5.2.0' }
const getDelta = (server: ServerRef, token: string, etag?: string) =>
  request(server, { method: 'GET', path: '/api/client/delta', token, headers: { ...spec, ...(etag ? { 'if-none-match': etag } : {}) } })

t.test('the first call is a hydration with a numeric ETag; the same ETag is 304; an older one gets the events since', async (t) => {
  const server = await startTestServer(t)
  await createEnabledFeature(server, 'default', 'one')
  const token = await clientToken(server, ['*'])
  const first = await getDelta(server, token)
  t.equal(first.status, 200)
  const etag = first.headers.get('etag')!
  t.match(etag, /^"\d+"$/, 'ETag "<revision>"')
  const revision = Number(etag.slice(1, -1))
  t.ok(revision > 0 && revision < 2 ** 32, 'an event id below 2^32')
  t.same(first.body.events.map((e: { type: string }) => e.type), ['hydration'])
  t.equal(first.body.events[0].eventId, revision)
  t.same(first.body.events[0].features.map((f: { name: string }) => f.name), ['one'])
  t.same(first.body.events[0].segments, [], 'segments are present even when there are none')

  const unchanged = await getDelta(server, token, etag)
  t.equal(unchanged.status, 304)
  t.equal(unchanged.text, '')

  expectOk(await disableFeature(server, 'default', 'one', 'development'), 'disable')
  const segment = expectOk(await createSegment(server, { name: 's', constraints: [] }), 'segment')
  const later = await getDelta(server, token, etag)
  t.equal(later.status, 200)
  t.same(
    later.body.events.map((e: { type: string; feature?: { name: string; enabled: boolean }; segment?: { id: number } }) => [e.type, e.feature?.enabled ?? e.segment?.id]),
    [['feature-updated', false], ['segment-updated', segment.body.id]],
    'only what changed since, in order',
  )
  t.ok(later.body.events.every((e: { eventId: number }) => e.eventId > revision), 'every event is newer than the ETag')
  t.equal(later.headers.get('etag'), `"${later.body.events.at(-1).eventId}"`, 'the new ETag is the last event id')
  t.equal((await getDelta(server, token, `W/${later.headers.get('etag')}`)).status, 304, 'a weak ETag is read too')
})

t.test('an ETag older than the events kept gets a hydration; a restart rebuilds them from the log', async (t) => {
  const server = await startTestServer(t, { mode: 'child', env: { DELTA_EVENTS_KEPT: '5' } })
  await createEnabledFeature(server, 'default', 'a')
  const token = await clientToken(server, ['*'])
  const old = (await getDelta(server, token)).headers.get('etag')!
  expectOk(await disableFeature(server, 'default', 'a', 'development'), 'disable')
  const recent = (await getDelta(server, token)).headers.get('etag')!
  expectOk(await enableFeature(server, 'default', 'a', 'development'), 'enable')
  await server.stop()
  const again = await startTestServer(t, { mode: 'child', dataDir: server.dataDir, adminToken: server.adminToken, env: { DELTA_EVENTS_KEPT: '5' } })
  const afterRestart = await getDelta(again, token, recent)
  t.same(afterRestart.body.events.map((e: { type: string; feature?: { enabled: boolean } }) => [e.type, e.feature?.enabled]), [['feature-updated', true]], 'events, not a hydration, after a restart')
  for (let i = 0; i < 6; i++) expectOk(await createFeature(again, 'default', `filler-${i}`), 'filler')
  const tooOld = await getDelta(again, token, old)
  t.same(tooOld.body.events.map((e: { type: string }) => e.type), ['hydration'], 'too old: a hydration')
  t.equal(tooOld.body.events[0].features.length, 7)
})

t.test('the delta-polling SDK follows every change', async (t) => {
  const server = await startTestServer(t)
  const token = await clientToken(server, ['*'])
  const sdk = await startSdk(t, server.baseUrl, token, { refreshInterval: 50, experimentalMode: { type: 'polling', format: 'delta' } })
  const steps: [string, () => Promise<unknown>, () => boolean][] = [
    ['a new flag, enabled', () => createEnabledFeature(server, 'default', 'followed'), () => sdk.isEnabled('followed')],
    ['switched off', () => disableFeature(server, 'default', 'followed', 'development'), () => !sdk.isEnabled('followed') && sdk.getFeatureToggleDefinition('followed') !== undefined],
    ['a flag whose strategy uses a new segment', async () => {
      const segment = expectOk(await createSegment(server, { name: 'only-7', constraints: [{ contextName: 'userId', operator: 'IN', values: ['7'] }] }), 'segment')
      await createEnabledFeature(server, 'default', 'segmented', 'development', { name: 'default', segments: [segment.body.id] })
    }, () => sdk.isEnabled('segmented', { userId: '7' }) && !sdk.isEnabled('segmented', { userId: '8' })],
    ['switched on again, with a second strategy', async () => {
      expectOk(await addStrategy(server, 'default', 'followed', 'development', { name: 'userWithId', parameters: { userIds: '1' } }), 'strategy')
      expectOk(await enableFeature(server, 'default', 'followed', 'development'), 'enable')
    }, () => sdk.isEnabled('followed') && sdk.getFeatureToggleDefinition('followed')?.strategies?.length === 2],
    ['archived', () => archiveFeature(server, 'default', 'followed'), () => sdk.getFeatureToggleDefinition('followed') === undefined],
  ]
  for (const [what, change, check] of steps) {
    await change()
    t.ok(await eventually(check, 20_000), `the SDK sees: ${what}`)
  }
})

t.test('a delta for a project-scoped token holds only its projects', async (t) => {
  const server = await startTestServer(t)
  expectOk(await request(server, { method: 'POST', path: '/api/admin/projects', token: server.adminToken, body: { id: 'other', name: 'other' } }), 'project')
  await createEnabledFeature(server, 'default', 'mine')
  await createEnabledFeature(server, 'other', 'theirs')
  const token = await clientToken(server, ['default'])
  const etag = (await getDelta(server, token)).headers.get('etag')!
  expectOk(await disableFeature(server, 'other', 'theirs', 'development'), 'other project')
  expectOk(await archiveFeature(server, 'other', 'theirs'), 'other project archived')
  const unchanged = await getDelta(server, token, etag)
  t.equal(unchanged.status, 304, 'changes elsewhere do not move this scope')
})

// GET /api/client/streaming with the real unleash-client in streaming mode, and on the wire.
import t from 'tap'
import type { Unleash } from 'unleash-client'
import {
  addStrategy,
  archiveFeature,
  clientToken,
  createEnabledFeature,
  createFeature,
  createProject,
  createSegment,
  deleteApiToken,
  disableFeature,
  enableFeature,
  expectOk,
  getClientFeatures,
  updateApiToken,
} from '../helpers/admin-api.js'
import { eventually } from '../helpers/expect.js'
import { startSdk, waitForEvent } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'
import { eventsOf, openStream } from '../helpers/sse.js'

const spec = { 'Unleash-Client-Spec': '5.2.0' }
// The SDK announces a switch between polling and streaming on its repository only.
const repositoryOf = (sdk: Unleash) => (sdk as unknown as { repository: Unleash }).repository

t.test('the streaming SDK is ready from the hydration and follows toggles without polling', async (t) => {
  const server = await startTestServer(t)
  await createEnabledFeature(server, 'default', 'pushed')
  const token = await clientToken(server, ['*'])
  // An hour between polls: anything the SDK learns after start-up came through the stream.
  const sdk: Unleash = await startSdk(t, server.baseUrl, token, { refreshInterval: 3_600_000, experimentalMode: { type: 'streaming' } })
  t.equal(sdk.isEnabled('pushed'), true, 'enabled from the hydration')
  expectOk(await disableFeature(server, 'default', 'pushed', 'development'), 'disable')
  await eventually(() => !sdk.isEnabled('pushed'), 20_000)
  t.equal(sdk.isEnabled('pushed'), false, 'a toggle off arrives')
  expectOk(await createFeature(server, 'default', 'later'), 'create later')
  expectOk(await addStrategy(server, 'default', 'later', 'development'), 'strategy')
  expectOk(await enableFeature(server, 'default', 'later', 'development'), 'enable later')
  await eventually(() => sdk.isEnabled('later'), 20_000)
  t.equal(sdk.isEnabled('later'), true, 'a new flag arrives')
  expectOk(await archiveFeature(server, 'default', 'later'), 'archive later')
  await eventually(() => sdk.getFeatureToggleDefinition('later') === undefined, 20_000)
  t.equal(sdk.getFeatureToggleDefinition('later'), undefined, 'an archived flag is removed')
})

t.test('the hydration holds what /api/client/features serves the same token, segments as ids', async (t) => {
  const server = await startTestServer(t)
  const segment = expectOk(await createSegment(server, { name: 'beta', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] }), 'segment')
  await createEnabledFeature(server, 'default', 'with-segment', 'development', { name: 'default', segments: [segment.body.id] })
  await createEnabledFeature(server, 'default', 'plain')
  const token = await clientToken(server, ['default'])
  const stream = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec })
  t.equal(stream.status, 200)
  t.match(stream.headers['content-type'], /^text\/event-stream/)
  const connected = await stream.next((f) => f.event === 'unleash-connected')
  const [hydration] = eventsOf(connected)
  const polled = (await getClientFeatures(server, token, '', spec)).body
  t.equal(hydration.type, 'hydration')
  t.equal(String(hydration.eventId), connected.id, 'the id line carries the event id')
  t.same(hydration.features, polled.features, 'the same features as a poll')
  t.same(hydration.segments, polled.segments, 'the same segments as a poll')
  t.same(hydration.features.find((f: { name: string }) => f.name === 'with-segment').strategies[0].segments, [segment.body.id])
})

t.test("only the token's projects and environment ever reach its stream", async (t) => {
  const server = await startTestServer(t)
  expectOk(await createProject(server, { id: 'other', name: 'other' }), 'project')
  await createEnabledFeature(server, 'default', 'mine')
  await createEnabledFeature(server, 'other', 'theirs')
  const token = await clientToken(server, ['default'], 'development')
  const stream = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec })
  await stream.next((f) => f.event === 'unleash-connected')
  expectOk(await disableFeature(server, 'other', 'theirs', 'development'), 'another project')
  expectOk(await disableFeature(server, 'default', 'mine', 'production'), 'another environment')
  expectOk(await enableFeature(server, 'default', 'mine', 'production'), 'another environment')
  expectOk(await disableFeature(server, 'default', 'mine', 'development'), 'in scope')
  const update = await stream.next((f) => f.event === 'unleash-updated')
  t.same(
    eventsOf(update).map((e) => [e.type, e.feature?.name, e.feature?.enabled]),
    [['feature-updated', 'mine', false]],
    'the first update is the change in scope',
  )
  t.equal(stream.frames.filter((f) => f.event === 'unleash-updated').length, 1, 'nothing else was sent')
})

t.test('a reconnect with Last-Event-ID gets what it missed; one no longer kept gets a hydration', async (t) => {
  const server = await startTestServer(t, { env: { DELTA_EVENTS_KEPT: '10' } })
  await createEnabledFeature(server, 'default', 'a')
  await createEnabledFeature(server, 'default', 'b')
  const token = await clientToken(server, ['*'])
  const first = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec })
  const seen = Number((await first.next((f) => f.event === 'unleash-connected')).id)
  first.close()
  expectOk(await disableFeature(server, 'default', 'a', 'development'), 'disable a while away')
  const again = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec, 'last-event-id': String(seen) })
  const missed = eventsOf(await again.next((f) => f.event === 'unleash-connected'))
  t.same(missed.map((e) => [e.type, e.feature?.name, e.feature?.enabled]), [['feature-updated', 'a', false]], 'only the missed change')
  for (let i = 0; i < 12; i++) expectOk(await createFeature(server, 'default', `filler-${i}`), 'filler')
  const late = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec, 'last-event-id': String(seen) })
  const rehydrated = eventsOf(await late.next((f) => f.event === 'unleash-connected'))
  t.equal(rehydrated.length, 1)
  t.equal(rehydrated[0].type, 'hydration', 'too old: a fresh hydration')
  t.equal(rehydrated[0].features.length, 14)
})

t.test("a deleted token's stream closes at once, an expired token's within the check interval", async (t) => {
  const server = await startTestServer(t)
  const deleted = await clientToken(server, ['*'])
  const expiring = await clientToken(server, ['*'])
  const kept = await clientToken(server, ['*'])
  const streams = await Promise.all([deleted, expiring, kept].map((token) => openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec })))
  for (const stream of streams) await stream.next((f) => f.event === 'unleash-connected')
  const started = Date.now()
  expectOk(await deleteApiToken(server, deleted), 'delete')
  await streams[0].closed
  // Sooner than the expiry check's first tick (every second): the delete closed it, not the check.
  t.ok(Date.now() - started < 900, `closed ${Date.now() - started} ms after the delete`)
  expectOk(await updateApiToken(server, expiring, { expiresAt: new Date(Date.now() + 1000).toISOString() }), 'expire soon')
  await streams[1].closed
  // Closed by the check once expired: a bound for a loaded machine, not a measure of the check.
  t.ok(Date.now() - started < 15_000, `closed ${Date.now() - started} ms after the update`)
  let keptClosed = false
  void streams[2].closed.then(() => (keptClosed = true))
  await new Promise((r) => setTimeout(r, 200))
  t.equal(keptClosed, false, 'the other token keeps its stream')
})

t.test('heartbeat comments keep an idle stream alive', async (t) => {
  const server = await startTestServer(t, { env: { STREAMING_HEARTBEAT_MS: '100' } })
  const token = await clientToken(server, ['*'])
  const stream = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec })
  const beat = await stream.next((f) => f.comment !== undefined, 2000)
  t.equal(beat.comment, 'keep-alive')
  t.equal(beat.event, undefined, 'a comment, not an event the SDK would handle')
})

t.test('above the maximum a new stream is told to poll, and the SDK falls back to polling', async (t) => {
  const server = await startTestServer(t, { env: { STREAMING_MAX_CONNECTIONS: '1' } })
  await createEnabledFeature(server, 'default', 'still-served')
  const token = await clientToken(server, ['*'])
  const first = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec })
  await first.next((f) => f.event === 'unleash-connected')
  const second = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, ...spec })
  const hint = await second.next((f) => f.event === 'fetch-mode')
  t.equal(hint.data, 'polling')
  await second.closed
  t.notOk(second.frames.some((f) => f.event === 'unleash-connected'), 'no hydration for a stream that is shed')
  const sdk = await startSdk(t, server.baseUrl, token, { refreshInterval: 100, experimentalMode: { type: 'streaming' }, synchronized: false })
  const mode = await waitForEvent<{ from: string; to: string }>(repositoryOf(sdk), 'mode', 30_000)
  t.same(mode, { from: 'streaming', to: 'polling' })
  await eventually(() => sdk.isEnabled('still-served'), 20_000)
  t.equal(sdk.isEnabled('still-served'), true, 'served by polling')
})

t.test('fetch-mode: streaming on /api/client/features invites a polling SDK to stream', async (t) => {
  const server = await startTestServer(t, { env: { STREAMING_INVITE_POLLERS: '1' } })
  await createEnabledFeature(server, 'default', 'invited')
  const token = await clientToken(server, ['*'])
  const polled = await getClientFeatures(server, token)
  t.equal(polled.headers.get('fetch-mode'), 'streaming')
  const sdk = await startSdk(t, server.baseUrl, token, { refreshInterval: 3_600_000, synchronized: false })
  const mode = await waitForEvent<{ from: string; to: string }>(repositoryOf(sdk), 'mode', 30_000)
  t.same(mode, { from: 'polling', to: 'streaming' })
  await eventually(() => sdk.isEnabled('invited'), 20_000)
  expectOk(await disableFeature(server, 'default', 'invited', 'development'), 'disable')
  await eventually(() => !sdk.isEnabled('invited'), 20_000)
  t.equal(sdk.isEnabled('invited'), false, 'the change arrives by the stream')
})

t.test('without the invitation /api/client/features sends no fetch-mode header', async (t) => {
  const server = await startTestServer(t)
  const token = await clientToken(server, ['*'])
  t.equal((await getClientFeatures(server, token)).headers.get('fetch-mode'), null)
})

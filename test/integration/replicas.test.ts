import t, { type Test } from 'tap'
import { api, clientToken, createFeature, createProject, disableFeature, enableFeature, expectOk, getClientFeatures, type ServerRef } from '../helpers/admin-api.js'
import { requireNatsServer, startNatsServer, type NatsServer } from '../helpers/nats.js'
import { startSdk } from '../helpers/sdk.js'
import { makeDataDir, randomAdminToken, startTestServer, type TestServer } from '../helpers/server.js'

const P = 'replicated'
const totalWrites = 1000

const health = async (server: ServerRef) => (await api(server, 'GET', '/health', undefined, null)).body?.details

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`timed out waiting for ${what}`)
}

const replicaEnv = (nats: NatsServer) => ({ NATS_URL: nats.url, READ_REPLICA: 'true', WRITER_URL: 'http://writer.example:4242' })

const startReplica = (t: Test, nats: NatsServer, dataDir: string, adminToken: string) =>
  startTestServer(t, { mode: 'child', dataDir, adminToken, env: replicaEnv(nats) })

// The replica is serving once its first snapshot is in: before that it answers 503.
const untilServing = (replica: TestServer) => until('the replica to serve', async () => (await api(replica, 'GET', '/health', undefined, null)).status === 200)

const converged = async (t: Test, writer: TestServer, replicas: TestServer[], token: string) => {
  const committedId = (await health(writer)).committedId as number
  await until(`replicas to apply log id ${committedId}`, async () => {
    for (const replica of replicas) if ((await health(replica))?.appliedId !== committedId) return false
    return true
  })
  const expected = await getClientFeatures(writer, token, '', { 'accept-encoding': 'identity' })
  for (const replica of replicas) {
    const actual = await getClientFeatures(replica, token, '', { 'accept-encoding': 'identity' })
    t.equal(actual.status, 200)
    t.ok(actual.text === expected.text, `replica on port ${replica.port} serves the writer's client features byte for byte (${expected.text.length} bytes)`)
    t.equal(actual.headers.get('etag'), expected.headers.get('etag'), 'and the same ETag')
  }
  return committedId
}

// NATS, a writer with the project P (and what `seed` adds) and a client token, and one replica serving;
// undefined when there is no nats-server (the test then says so and passes).
const writerWithReplica = async (t: Test, seed: (writer: TestServer) => Promise<void> = async () => undefined) => {
  const binary = requireNatsServer(t)
  if (!binary) return undefined
  const nats = await startNatsServer(t, binary)
  const adminToken = randomAdminToken()
  const writer = await startTestServer(t, { mode: 'child', adminToken, env: { NATS_URL: nats.url } })
  expectOk(await createProject(writer, { id: P, name: 'Replicated' }), 'project')
  await seed(writer)
  const token = await clientToken(writer, [P])
  const replica = await startReplica(t, nats, makeDataDir(t), adminToken)
  await untilServing(replica)
  return { nats, writer, token, replica }
}

t.test('two replicas follow a writer through 1,000 writes, a replica restart and a NATS restart', async (t) => {
  const binary = requireNatsServer(t)
  if (!binary) return
  const nats = await startNatsServer(t, binary)
  const adminToken = randomAdminToken()
  const writer = await startTestServer(t, { mode: 'child', adminToken, env: { NATS_URL: nats.url, REPLICA_SNAPSHOT_EVERY: '100' } })
  expectOk(await createProject(writer, { id: P, name: 'Replicated' }), 'project')
  const token = await clientToken(writer, [P])
  const replicaDirs = [makeDataDir(t), makeDataDir(t)]
  const replicas = [await startReplica(t, nats, replicaDirs[0], adminToken), await startReplica(t, nats, replicaDirs[1], adminToken)]
  await Promise.all(replicas.map(untilServing))

  // 250 flags created, then toggled on and off: 1,000 writes from 8 concurrent writers.
  const flags = Array.from({ length: 250 }, (_, i) => `flag-${String(i).padStart(3, '0')}`)
  const writes: (() => Promise<unknown>)[] = [
    ...flags.map((flag) => async () => expectOk(await createFeature(writer, P, flag), `create ${flag}`)),
    ...flags.map((flag) => async () => expectOk(await enableFeature(writer, P, flag, 'development'), `enable ${flag}`)),
    ...flags.map((flag) => async () => expectOk(await disableFeature(writer, P, flag, 'development'), `disable ${flag}`)),
    ...flags.map((flag) => async () => expectOk(await enableFeature(writer, P, flag, 'development'), `enable ${flag} again`)),
  ]
  t.equal(writes.length, totalWrites)
  let done = 0
  const runWrites = async (upTo: number) => {
    const batch = writes.slice(done, upTo)
    done = upTo
    for (let i = 0; i < batch.length; i += 8) await Promise.all(batch.slice(i, i + 8).map((write) => write()))
  }

  await runWrites(300)
  await replicas[1].kill()
  await runWrites(450)
  replicas[1] = await startReplica(t, nats, replicaDirs[1], adminToken)
  await runWrites(600)
  await untilServing(replicas[1])

  // NATS goes away: the writer goes on accepting writes and publishes the backlog when it returns.
  await nats.stop()
  await runWrites(800)
  t.equal((await health(writer)).natsConnected, false, 'the writer saw NATS go')
  await nats.start()
  await runWrites(totalWrites)

  const committedId = await converged(t, writer, replicas, token)
  t.ok(committedId > totalWrites, `the writer committed ${committedId} records`)
  const features = (await getClientFeatures(replicas[0], token)).body.features
  t.equal(features.length, 250)
  t.ok(features.every((f: { enabled: boolean }) => f.enabled), 'every flag ends enabled on the replica')
})

t.test('a replica refuses admin requests naming the writer, and a streaming SDK on it sees toggles made on the writer', async (t) => {
  const setUp = await writerWithReplica(t, async (writer) => void expectOk(await createFeature(writer, P, 'streamed'), 'flag'))
  if (!setUp) return
  const { writer, token, replica } = setUp

  const refused = await createProject(replica, { id: 'other', name: 'Other' })
  t.equal(refused.status, 403)
  t.equal(refused.body.name, 'ForbiddenError')
  t.match(refused.body.message, /read replica.*http:\/\/writer\.example:4242/)
  t.equal((await api(replica, 'GET', '/api/admin/projects')).status, 403, 'admin reads are the writer\'s too')
  const signIn = await fetch(`${replica.baseUrl}/auth/simple/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'whatever-it-is' }),
  })
  t.equal(signIn.status, 403, 'signing in on a replica is refused: its session would work nowhere')
  t.equal(signIn.headers.get('set-cookie'), null, 'and no cookie is given')
  t.match(await signIn.json(), { name: 'ForbiddenError', message: /read replica.*http:\/\/writer\.example:4242/ })
  const details = await health(replica)
  t.equal(details.role, 'replica')
  t.equal(details.writerId, details.appliedId)
  const metrics = await (await fetch(`${replica.baseUrl}/internal-backstage/prometheus`)).text()
  t.match(metrics, new RegExp(`^flagwright_log_last_id ${details.appliedId}$`, 'm'), 'the applied log id is in the metrics')
  t.match(metrics, /^flagwright_replication_lag_records 0$/m, 'and the lag')
  t.match(metrics, /^flagwright_replication_nats_connected 1$/m)

  // Streaming mode, polling only once an hour: what the SDK sees comes down the replica's stream.
  const sdk = await startSdk(t, replica.baseUrl, token, { refreshInterval: 3_600_000, experimentalMode: { type: 'streaming' } })
  t.equal(sdk.isEnabled('streamed'), false)
  const seen = new Promise<void>((resolve) => sdk.on('changed', () => sdk.isEnabled('streamed') && resolve()))
  expectOk(await enableFeature(writer, P, 'streamed', 'development'), 'enable on the writer')
  await seen
  t.equal(sdk.isEnabled('streamed'), true, 'a streaming SDK on the replica sees the toggle made on the writer')
})

t.test('a replica answers 503 until it has the writer\'s snapshot, then /ready says 200', async (t) => {
  const binary = requireNatsServer(t)
  if (!binary) return
  const nats = await startNatsServer(t, binary)
  const adminToken = randomAdminToken()
  const replica = await startReplica(t, nats, makeDataDir(t), adminToken)
  const ready = await api(replica, 'GET', '/ready', undefined, null)
  t.equal(ready.status, 503)
  t.equal(ready.body.name, 'ServiceUnavailableError')
  t.equal((await getClientFeatures(replica, adminToken)).status, 503, 'no empty flag list before the snapshot')
  await startTestServer(t, { mode: 'child', adminToken, env: { NATS_URL: nats.url } })
  await until('the replica to be ready', async () => (await api(replica, 'GET', '/ready', undefined, null)).status === 200)
  t.pass('ready once restored')
})

t.test('cut off from NATS, a replica keeps serving and says it is degraded, its lag unknown', async (t) => {
  const setUp = await writerWithReplica(t)
  if (!setUp) return
  const { nats, writer, token, replica } = setUp
  await converged(t, writer, [replica], token)
  t.equal((await health(replica)).degraded, undefined, 'connected: not degraded')

  await nats.stop()
  await until('the replica to see NATS go', async () => (await health(replica)).natsConnected === false)
  for (let i = 0; i < 20; i++) expectOk(await createFeature(writer, P, `unseen-${i}`), `write ${i} while NATS is down`)

  const answer = await api(replica, 'GET', '/health', undefined, null)
  t.equal(answer.status, 200, '/health still answers 200: reads are served')
  t.equal(answer.body.details.lag, null, 'the lag is unknown, not 0')
  t.equal(answer.body.details.natsConnected, false)
  t.type(answer.body.details.heardSecondsAgo, 'number', 'it says when it last heard from the writer')
  t.match(answer.body.details.degraded, /^not connected to NATS: serving what was applied up to log id \d+; the writer was last heard from \d+ s ago$/)
  const ready = await api(replica, 'GET', '/ready', undefined, null)
  t.equal(ready.status, 200, 'not drained: every replica would go at once')
  t.match(ready.body.degraded, /^not connected to NATS/)
  const metrics = await (await fetch(`${replica.baseUrl}/internal-backstage/prometheus`)).text()
  // prom-client writes NaN as `Nan`, which Prometheus reads as NaN (Go's ParseFloat ignores the case).
  t.match(metrics, /^flagwright_replication_lag_records (NaN|Nan)$/m, 'Prometheus shows the lag as unknown')
  t.match(metrics, /^flagwright_replication_nats_connected 0$/m)
  t.equal((await getClientFeatures(replica, token)).status, 200, 'SDK reads are still served')

  await nats.start()
  await converged(t, writer, [replica], token)
  t.equal((await health(replica)).degraded, undefined, 'back and current: not degraded')
})

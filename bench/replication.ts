// Read replicas on NATS JetStream: how far behind the writer a replica is under a write burst, and
// what a replica serves beside the writer.
//
//   node dist/bench/replication.js [--flags 1000] [--writes 2000] [--concurrency 1,16] [--duration 5]
//
// Starts nats-server (Debian's, -js, a temp store), a writer (NATS_URL) and one replica
// (READ_REPLICA=true), seeds the realistic flag set through the writer's admin API, then:
// 1. Replication lag: bursts of `--writes` flag description updates (one log record each) at each
//    concurrency. Every write's log id is read back from the event list; a poller on the replica's
//    /health records when each id is first applied. Lag = applied time - the write's HTTP answer on
//    the writer (the answer is sent after the LMDB commit, the publish follows that commit). The
//    poller's resolution is one /health round trip, printed beside the figures.
// 2. GET /api/client/features (gzip, and If-None-Match 304) on the writer and on the replica,
//    interleaved rounds, same token and bytes checked equal first.
import { randomBytes } from 'node:crypto'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { AdminApi, forEachLimited } from './lib/admin-api.js'
import { startChildServer, startFlagServer, tempDir, type ChildServer } from './lib/child-server.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { LatencyHistogram } from './lib/latency-histogram.js'
import { describeMachine, machineInfo } from './lib/machine-info.js'
import { natsServerBinary, startNatsServer } from './lib/nats-server.js'
import { realisticFeatures, seedFeatures } from './lib/realistic-features.js'
import { runLoad } from './lib/run-load.js'

const option = (name: string, fallback: string): string => {
  const at = process.argv.indexOf(`--${name}`)
  return at >= 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback
}
const flagCount = Number(option('flags', '1000'))
const writesPerBurst = Number(option('writes', '2000'))
const concurrencies = option('concurrency', '1,16').split(',').map(Number)
const durationMs = Number(option('duration', '5')) * 1000

const here = path.dirname(fileURLToPath(import.meta.url))
const health = async (url: string) => ((await (await fetch(`${url}/health`)).json()) as { details: { appliedId?: number; committedId?: number } }).details

const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
  const deadline = Date.now() + timeoutMs
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

interface Burst {
  concurrency: number
  lag: LatencyHistogram
  writesPerSecond: number
  pollMicros: number
}

const burst = async (api: AdminApi, writer: ChildServer, replica: ChildServer, concurrency: number, round: number): Promise<Burst> => {
  const flag = 'lag-probe'
  const acked = new Map<string, number>()
  const firstSeen = new Map<number, number>()
  let polling = true
  let polls = 0
  let pollTime = 0
  let lastSeen = (await health(replica.url)).appliedId ?? 0
  const poller = (async () => {
    while (polling) {
      const before = performance.now()
      const applied = (await health(replica.url)).appliedId ?? 0
      const now = performance.now()
      polls++
      pollTime += now - before
      for (let id = lastSeen + 1; id <= applied; id++) firstSeen.set(id, now)
      lastSeen = Math.max(lastSeen, applied)
    }
  })()
  const started = performance.now()
  const descriptions = Array.from({ length: writesPerBurst }, (_, i) => `r${round}-w${i}`)
  await forEachLimited(descriptions, concurrency, async (description) => {
    await api.request('PUT', `/api/admin/projects/default/features/${flag}`, { description })
    acked.set(description, performance.now())
  })
  const elapsed = performance.now() - started
  const committedId = (await health(writer.url)).committedId ?? 0
  await until('the replica to catch up', async () => lastSeen >= committedId)
  polling = false
  await poller
  // Which log id each write got: its event carries the description it set.
  const events = (await api.request('GET', `/api/admin/events/${flag}?limit=${writesPerBurst + 10}`)) as { events: { id: number; data: { description?: string } }[] }
  const lag = new LatencyHistogram()
  for (const event of events.events) {
    const ackedAt = event.data.description === undefined ? undefined : acked.get(event.data.description)
    const seenAt = firstSeen.get(event.id)
    if (ackedAt !== undefined && seenAt !== undefined) lag.recordMicros(Math.max(0, seenAt - ackedAt) * 1000)
  }
  if (lag.count !== writesPerBurst) throw new Error(`matched ${lag.count} of ${writesPerBurst} writes to their log ids`)
  return { concurrency, lag, writesPerSecond: (writesPerBurst / elapsed) * 1000, pollMicros: (pollTime / polls) * 1000 }
}

const main = async () => {
  const binary = natsServerBinary()
  if (!binary) throw new Error('nats-server is not installed (apt-get install nats-server)')
  console.log(describeMachine(machineInfo()))
  const nats = await startNatsServer(binary)
  const adminToken = `*:*.${randomBytes(16).toString('hex')}`
  const clientToken = `*:development.${randomBytes(16).toString('hex')}`
  const writer = await startFlagServer({ adminToken, clientToken, env: { NATS_URL: nats.url } })
  const replicaDir = tempDir('replica-bench-')
  const replica = await startChildServer({
    name: 'replica',
    script: path.join(here, '..', 'src', 'main.js'),
    env: { HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', DATA_DIR: path.join(replicaDir, 'data'), NATS_URL: nats.url, READ_REPLICA: 'true' },
  })
  try {
    const api = new AdminApi(writer.url, adminToken)
    await seedFeatures(api, realisticFeatures(flagCount))
    await api.createFeature('default', { name: 'lag-probe' })
    await until('the replica to serve', async () => (await fetch(`${replica.url}/ready`)).status === 200)

    const bursts: Burst[] = []
    for (const [round, concurrency] of concurrencies.entries()) bursts.push(await burst(api, writer, replica, concurrency, round))
    console.log(`\nReplication lag: ${writesPerBurst} writes per burst (one log record each), write answered on the writer → applied on the replica`)
    console.log(
      formatTable(
        ['concurrency', 'writes/s', 'lag p50 ms', 'lag p99 ms', 'lag max ms', 'poll resolution ms'],
        bursts.map((b) => [String(b.concurrency), thousands(b.writesPerSecond), fixed(b.lag.percentileMs(0.5), 2), fixed(b.lag.percentileMs(0.99), 2), fixed(b.lag.percentileMs(1), 2), fixed(b.pollMicros / 1000, 2)]),
      ),
    )

    const headers = { authorization: clientToken, 'accept-encoding': 'gzip', 'unleash-client-spec': '5.2.0' }
    const [fromWriter, fromReplica] = await Promise.all([writer, replica].map(async (s) => (await fetch(`${s.url}/api/client/features`, { headers: { authorization: clientToken } })).text()))
    if (fromWriter !== fromReplica) throw new Error('the replica does not serve the writer\'s bytes')
    const etag = (await fetch(`${writer.url}/api/client/features`, { headers })).headers.get('etag')!
    const rows: string[][] = []
    for (const [scenario, extra] of [['gzip', {}], ['304', { 'if-none-match': etag }]] as const) {
      const results = new Map<string, number[]>()
      for (let round = 0; round < 2; round++) {
        for (const server of [writer, replica]) {
          const result = await runLoad({ port: server.port, path: '/api/client/features', headers: { ...headers, ...extra }, connections: 16, durationMs })
          results.set(server.name, [...(results.get(server.name) ?? []), result.requestsPerSecond])
          if (result.errorCount > 0) throw new Error(`${server.name}: ${result.errors.join('; ')}`)
        }
      }
      const mean = (name: string) => results.get(name)!.reduce((a, b) => a + b, 0) / results.get(name)!.length
      rows.push([scenario, thousands(mean(writer.name)), thousands(mean(replica.name)), fixed(mean(replica.name) / mean(writer.name), 2)])
    }
    console.log(`\nGET /api/client/features, ${flagCount} flags, 16 connections, ${durationMs / 1000} s x 2 interleaved rounds`)
    console.log(formatTable(['scenario', 'writer req/s', 'replica req/s', 'replica / writer'], rows))
  } finally {
    await replica.stop()
    await writer.stop()
    await nats.destroy()
  }
}

await main()

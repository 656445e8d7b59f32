// Issue 23, slow SDK stream readers, in two parts.
// 1. BENCH_SLOW_STREAMS connections ask for /api/client/streaming and never read; then BENCH_TOGGLES changes of
//    one flag of about 290 KB. The server's RSS before, at its highest and just after, what it holds and drops,
//    and how long until every stream is gone; once per STREAMING_MAX_BUFFERED_BYTES in BENCH_CAPS.
// 2. /health and an SDK's 304 poll under a light closed-loop load, without streams (the baseline) and while
//    BENCH_CONNECT_STREAMS streams that read connect at once, BENCH_ROUNDS times each, interleaved.
// BENCH_PARTS=never-read or BENCH_PARTS=connect runs one part. BENCH_SERVER_MAIN=<another build's
// dist/src/main.js> measures that build (the figures before issue 23 came from an export of 3acc4a5).
// Loopback only; under a minute.
// Run: node scripts/build.mjs && node dist/bench/slow-streams.js
import { randomBytes } from 'node:crypto'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { AdminApi } from './lib/admin-api.js'
import { startFlagServer, type ChildServer } from './lib/child-server.js'
import { fixed, formatTable, ratio, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo, sampleProcess } from './lib/machine-info.js'
import { realisticFeatures, seedFeatures } from './lib/realistic-features.js'
import { runLoad, type LoadResult } from './lib/run-load.js'
import { positiveInteger } from './lib/settings.js'

const SLOW_STREAMS = positiveInteger('BENCH_SLOW_STREAMS', 100)
const TOGGLES = positiveInteger('BENCH_TOGGLES', 60)
const CONNECT_STREAMS = positiveInteger('BENCH_CONNECT_STREAMS', 2000)
const FLAGS = positiveInteger('BENCH_FLAGS', 100)
const ROUNDS = positiveInteger('BENCH_ROUNDS', 2)
const CAPS = (process.env.BENCH_CAPS ?? 'default,65536').split(',').map((c) => c.trim())
const PARTS = (process.env.BENCH_PARTS ?? 'never-read,connect').split(',').map((c) => c.trim())
const serverMain = process.env.BENCH_SERVER_MAIN ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js')

const adminToken = `*:*.${randomBytes(16).toString('hex')}`
const clientToken = `*:development.${randomBytes(16).toString('hex')}`
const sdkHeaders = { authorization: clientToken, 'unleash-client-spec': '5.2.0', 'unleash-appname': 'bench-slow-streams' }
const MiB = 2 ** 20
const mib = (bytes: number) => fixed(bytes / MiB, 1)

const startServer = (env: Record<string, string>): Promise<ChildServer> => startFlagServer({ script: serverMain, adminToken, clientToken, env })

const metrics = async (server: ChildServer): Promise<(name: string) => number> => {
  const text = await (await fetch(`${server.url}/internal-backstage/prometheus`)).text()
  return (name) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
}

const waitFor = async (what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<number> => {
  const started = Date.now()
  while (!(await check())) {
    if (Date.now() - started > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 50))
  }
  return Date.now() - started
}

const streamRequest = `GET /api/client/streaming HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${clientToken}\r\nUnleash-Client-Spec: 5.2.0\r\nAccept: text/event-stream\r\n\r\n`

// About 290 KB of JSON: 10 strategies of 4 constraints of 250 values (the default limits allow 30, 30, 250).
const createBigFlag = async (api: AdminApi, name: string) => {
  await api.createFeature('default', { name })
  for (let s = 0; s < 10; s++) {
    const constraints = Array.from({ length: 4 }, (_, c) => ({
      contextName: 'userId',
      operator: 'IN',
      values: Array.from({ length: 250 }, (_, v) => `user-${s}-${c}-${v}-${'x'.repeat(14)}`),
    }))
    await api.addStrategy('default', name, 'development', { name: 'default', constraints })
  }
}

const neverRead = async (server: ChildServer, cap: string) => {
  const api = new AdminApi(server.url, adminToken)
  await createBigFlag(api, 'big')
  const flagBytes = Buffer.byteLength(await (await fetch(`${server.url}/api/client/features/big`, { headers: sdkHeaders })).text())
  const sockets = Array.from({ length: SLOW_STREAMS }, () => {
    const socket = net.connect({ host: '127.0.0.1', port: server.port })
    socket.pause()
    socket.on('error', () => {})
    socket.write(streamRequest)
    return socket
  })
  try {
    await waitFor('the streams open', async () => (await metrics(server))('flagwright_streaming_clients') === SLOW_STREAMS, 20_000)
    const before = sampleProcess(server.pid)
    const started = Date.now()
    for (let i = 0; i < TOGGLES; i++) await api.request('POST', `/api/admin/projects/default/features/big/environments/development/${i % 2 === 0 ? 'on' : 'off'}`)
    const togglesMs = Date.now() - started
    const after = sampleProcess(server.pid)
    const read = await metrics(server)
    const closedMs = await waitFor('every stream closed', async () => (await metrics(server))('flagwright_streaming_clients') === 0, 60_000)
    const figure = (name: string, show: (n: number) => string) => (Number.isNaN(read(name)) ? '-' : show(read(name)))
    return [
      cap,
      thousands(flagBytes / 1000),
      mib(before.rssBytes),
      mib(after.peakRssBytes - before.rssBytes),
      mib(after.rssBytes - before.rssBytes),
      thousands(togglesMs),
      figure('flagwright_streaming_clients', thousands),
      figure('flagwright_streaming_dropped_slow_total', thousands),
      figure('flagwright_streaming_buffered_bytes', mib),
      fixed(closedMs / 1000, 1),
    ]
  } finally {
    for (const socket of sockets) socket.destroy()
  }
}

// CONNECT_STREAMS connections ask for the stream at once and read; resolves once every one has its hydration.
const connectStorm = (port: number) => {
  const sockets: net.Socket[] = []
  const started = Date.now()
  let hydrated = 0
  const done = new Promise<number>((resolve, reject) => {
    for (let i = 0; i < CONNECT_STREAMS; i++) {
      const socket = net.connect({ host: '127.0.0.1', port })
      sockets.push(socket)
      let isConnected = false
      let isHydrated = false
      let carried = ''
      socket.on('data', (chunk: Buffer) => {
        if (isHydrated) return
        let text = carried + chunk.toString('latin1')
        if (!isConnected) {
          const at = text.indexOf('event: unleash-connected')
          isConnected = at >= 0
          if (isConnected) text = text.slice(at)
        }
        // The frame ends with a blank line; its JSON holds no raw newline.
        if (isConnected && text.includes('\n\n')) {
          isHydrated = true
          if (++hydrated === CONNECT_STREAMS) resolve(Date.now() - started)
          return
        }
        carried = text.slice(-32)
      })
      socket.on('error', reject)
      socket.write(streamRequest)
    }
  })
  return { done, close: () => sockets.forEach((s) => s.destroy()) }
}

const p = (result: LoadResult, q: number) => fixed(result.latency.percentileMs(q), 2)

const connectLoad = async (server: ChildServer) => {
  const api = new AdminApi(server.url, adminToken)
  await seedFeatures(api, realisticFeatures(FLAGS))
  const first = await fetch(`${server.url}/api/client/features`, { headers: sdkHeaders })
  const hydrationBytes = Buffer.byteLength(await first.text())
  const pollHeaders = { ...sdkHeaders, 'if-none-match': first.headers.get('etag') ?? '' }
  const rows: string[][] = []
  const p99 = { without: [] as number[], with: [] as number[] }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const withStreams of [false, true]) {
      let storm: ReturnType<typeof connectStorm> | undefined
      const load = (requestPath: string, headers: Record<string, string>, onMeasureStart?: () => void) =>
        runLoad({ port: server.port, path: requestPath, headers, connections: 2, workers: 1, warmupMs: 1000, durationMs: 5000, onMeasureStart })
      const [health, poll] = await Promise.all([
        load('/health', {}, withStreams ? () => void (storm = connectStorm(server.port)) : undefined),
        load('/api/client/features', pollHeaders),
      ])
      const stormMs = storm ? await storm.done : undefined
      storm?.close()
      await waitFor('the streams closed', async () => (await metrics(server))('flagwright_streaming_clients') === 0, 30_000)
      for (const [name, result] of [['/health', health], ['304 poll', poll]] as const) {
        if (result.errorCount > 0 || Object.keys(result.statuses).some((s) => s !== (name === '/health' ? '200' : '304'))) {
          throw new Error(`${name}: unexpected answers ${JSON.stringify(result.statuses)} ${result.errors.slice(0, 3).join('; ')}`)
        }
      }
      ;(withStreams ? p99.with : p99.without).push(health.latency.percentileMs(0.99), poll.latency.percentileMs(0.99))
      rows.push([
        withStreams ? `${thousands(CONNECT_STREAMS)} streams connect` : 'no streams',
        String(round),
        thousands(health.requestsPerSecond), p(health, 0.5), p(health, 0.99), p(health, 1),
        thousands(poll.requestsPerSecond), p(poll, 0.5), p(poll, 0.99), p(poll, 1),
        stormMs === undefined ? '' : thousands(stormMs),
      ])
    }
  }
  return { rows, hydrationBytes, p99 }
}

const main = async () => {
  console.log(`# ${describeMachine(machineInfo())}; server ${serverMain}`)
  if (PARTS.includes('never-read')) await neverReadPart()
  if (PARTS.includes('connect')) await connectPart()
}

const neverReadPart = async () => {
  const slowRows: string[][] = []
  for (const cap of CAPS) {
    const server = await startServer(cap === 'default' ? {} : { STREAMING_MAX_BUFFERED_BYTES: cap })
    try {
      slowRows.push(await neverRead(server, cap))
    } finally {
      await server.stop()
    }
  }
  console.log(`\n${thousands(SLOW_STREAMS)} streams that never read, ${TOGGLES} changes of one flag\n`)
  console.log(
    formatTable(
      ['STREAMING_MAX_BUFFERED_BYTES', 'flag KB', 'RSS before MiB', 'peak above it MiB', 'after the changes MiB', 'changes took ms', 'streams open then', 'dropped slow', 'held MiB', 'all closed after s'],
      slowRows,
    ),
  )
}

const connectPart = async () => {
  const server = await startServer({ STREAMING_MAX_CONNECTIONS: String(CONNECT_STREAMS + 100) })
  try {
    const { rows, hydrationBytes, p99 } = await connectLoad(server)
    console.log(`\n/health and 304 polls (2 connections each), ${FLAGS} flags (hydration ${thousands(hydrationBytes / 1000)} KB)\n`)
    console.log(formatTable(['load', 'round', '/health req/s', 'p50 ms', 'p99 ms', 'max ms', '304 req/s', 'p50 ms', 'p99 ms', 'max ms', 'all hydrated in ms'], rows))
    const worst = (values: number[], i: number) => Math.max(...values.filter((_, j) => j % 2 === i))
    console.log(`worst p99 with streams / without: /health ${ratio(worst(p99.with, 0), worst(p99.without, 0))}, 304 poll ${ratio(worst(p99.with, 1), worst(p99.without, 1))}`)
  } finally {
    await server.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})

// Push latency and the memory of idle streams. A toggle made through the admin API, timed until the real
// unleash-client sees it: in streaming mode (GET /api/client/streaming) against the baseline of the same
// SDK polling /api/client/features at BENCH_POLL_MS. Then BENCH_IDLE_STREAMS idle SSE connections, and the
// server's RSS per connection, with a toggle pushed to all of them.
// Run: npx tsc -p . && node dist/bench/stream-push.js   (about 60 s; bench/README.md)
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import { InMemStorageProvider, Unleash, type UnleashConfig } from 'unleash-client'
import { AdminApi } from './lib/admin-api.js'
import { startFlagServer } from './lib/child-server.js'
import { fixed, formatTable, ratio, thousands } from './lib/format-table.js'
import { LatencyHistogram } from './lib/latency-histogram.js'
import { describeMachine, machineInfo, sampleProcess } from './lib/machine-info.js'
import { realisticFeatures, seedFeatures } from './lib/realistic-features.js'
import { positiveInteger } from './lib/settings.js'

const FLAGS = positiveInteger('BENCH_FLAGS', 1000)
const TOGGLES = positiveInteger('BENCH_TOGGLES', 200)
const POLL_MS = positiveInteger('BENCH_POLL_MS', 100)
const IDLE_STREAMS = positiveInteger('BENCH_IDLE_STREAMS', 10_000)

const adminToken = `*:*.${randomBytes(16).toString('hex')}`
const clientToken = `*:development.${randomBytes(16).toString('hex')}`

const startSdk = (url: string, mode: UnleashConfig['experimentalMode'], refreshInterval: number): Promise<Unleash> => {
  const sdk = new Unleash({
    url: `${url}/api`,
    appName: 'bench-push',
    customHeaders: { Authorization: clientToken },
    refreshInterval,
    disableMetrics: true,
    storageProvider: new InMemStorageProvider(),
    skipInstanceCountWarning: true,
    experimentalMode: mode,
  })
  sdk.on('error', (error) => console.error('sdk error', error))
  sdk.on('warn', (warning) => console.error('sdk warning', warning))
  // The SDK's sockets and timers do not hold the process open by themselves.
  const hold = setInterval(() => {}, 1000)
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the SDK did not synchronise within 30 s')), 30_000)
    sdk.once('synchronized', () => {
      clearTimeout(timer)
      clearInterval(hold)
      resolve(sdk)
    })
  })
}

// Toggles one flag on and off TOGGLES times; each latency runs from before the admin request is sent
// until the SDK's 'changed' event shows the new state.
const measure = async (api: AdminApi, sdk: Unleash, flag: string): Promise<LatencyHistogram> => {
  const histogram = new LatencyHistogram()
  const hold = setInterval(() => {}, 1000)
  for (let i = 0; i < TOGGLES; i++) {
    const target = !sdk.isEnabled(flag)
    const seen = new Promise<void>((resolve) => {
      const check = () => {
        if (sdk.isEnabled(flag) !== target) return
        sdk.off('changed', check)
        resolve()
      }
      sdk.on('changed', check)
    })
    const started = process.hrtime.bigint()
    await api.request('POST', `/api/admin/projects/default/features/${flag}/environments/development/${target ? 'on' : 'off'}`)
    await seen
    histogram.recordMicros(Number(process.hrtime.bigint() - started) / 1000)
  }
  clearInterval(hold)
  return histogram
}

// Idle connections as plain sockets, each counting the frames it received.
const openIdleStreams = async (port: number, count: number) => {
  const received = new Uint32Array(count)
  const requests: http.ClientRequest[] = []
  for (let i = 0; i < count; i += 200) {
    await Promise.all(
      Array.from({ length: Math.min(200, count - i) }, (_, j) =>
        new Promise<void>((resolve, reject) => {
          const req = http.get({ host: '127.0.0.1', port, path: '/api/client/streaming', agent: false, headers: { authorization: clientToken, 'unleash-client-spec': '5.2.0' } }, (res) => {
            res.on('data', (chunk: Buffer) => {
              if (chunk.includes('event: unleash-')) received[i + j]++
              resolve()
            })
          })
          req.on('error', reject)
          requests.push(req)
        }),
      ),
    )
  }
  return { received, close: () => requests.forEach((r) => r.destroy()) }
}

const main = async () => {
  const server = await startFlagServer({ adminToken, clientToken, env: { STREAMING_MAX_CONNECTIONS: String(IDLE_STREAMS + 100) } })
  try {
    const api = new AdminApi(server.url, adminToken)
    const features = realisticFeatures(FLAGS)
    await seedFeatures(api, features)
    // A flag with the default strategy, whose state shows without a context.
    const flag = 'bench-toggle'
    await api.createFeature('default', { name: flag })
    await api.addStrategy('default', flag, 'development', { name: 'default' })
    console.log(`# ${describeMachine(machineInfo())}; ${FLAGS} flags, ${TOGGLES} toggles per mode`)

    const streaming = await startSdk(server.url, { type: 'streaming' }, 3_600_000)
    const pushed = await measure(api, streaming, flag)
    streaming.destroy()
    const polling = await startSdk(server.url, { type: 'polling', format: 'full' }, POLL_MS)
    const polled = await measure(api, polling, flag)
    polling.destroy()

    const row = (name: string, h: LatencyHistogram) => [name, fixed(h.percentileMs(0.5), 2), fixed(h.percentileMs(0.9), 2), fixed(h.percentileMs(0.99), 2), fixed(h.percentileMs(1), 2)]
    console.log(formatTable(['admin toggle → SDK sees it', 'p50 ms', 'p90 ms', 'p99 ms', 'max ms'], [row('streaming', pushed), row(`polling every ${POLL_MS} ms (baseline)`, polled)]))
    console.log(`p99 streaming / polling: ${ratio(pushed.percentileMs(0.99), polled.percentileMs(0.99))}`)

    const before = sampleProcess(server.pid).rssBytes
    const idle = await openIdleStreams(server.port, IDLE_STREAMS)
    await new Promise((r) => setTimeout(r, 2000))
    const after = sampleProcess(server.pid).rssBytes
    const started = Date.now()
    // Each mode toggled the flag an even number of times from off: it is off, so this is a change.
    await api.request('POST', `/api/admin/projects/default/features/${flag}/environments/development/on`)
    while (idle.received.some((n) => n < 2) && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 10))
    const fanOutMs = Date.now() - started
    const reached = idle.received.filter((n) => n >= 2).length
    console.log(
      formatTable(
        ['idle streams', 'server RSS before', 'after', 'per stream', 'one toggle reached', 'in'],
        [[thousands(IDLE_STREAMS), `${fixed(before / 2 ** 20, 1)} MiB`, `${fixed(after / 2 ** 20, 1)} MiB`, `${thousands((after - before) / IDLE_STREAMS)} B`, thousands(reached), `${fanOutMs} ms`]],
      ),
    )
    idle.close()
  } finally {
    await server.stop()
  }
}

main().catch((error) => {
  console.error(error)
  process.exit(1)
})

// GET /api/client/features for 1,000 flags: our server against a bare uWebSockets.js server that
// answers the same path with the same bytes, run interleaved and printed as a ratio.
// Run: npx tsc -p . && node dist/bench/client-features.js   (bench/README.md lists the knobs)
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { gunzipSync } from 'node:zlib'
import { AdminApi } from './lib/admin-api.js'
import { startConstantServer, startFlagServer, type ChildServer } from './lib/child-server.js'
import { fixed, formatTable, ratio, thousands } from './lib/format-table.js'
import { LatencyHistogram } from './lib/latency-histogram.js'
import { describeMachine, machineInfo, sampleMachineCpu, sampleProcess } from './lib/machine-info.js'
import { rawGet } from './lib/raw-get.js'
import { realisticFeatures, seedFeatures } from './lib/realistic-features.js'
import { runLoad } from './lib/run-load.js'
import { positiveNumber } from './lib/settings.js'
import { sdkPollHeaders } from './lib/sdk-headers.js'

const FLAGS = positiveNumber('BENCH_FLAGS', 1000)
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 32)
// One core stays with the server: on 2 cores a second load thread only competes with it (README).
const WORKERS = positiveNumber('BENCH_WORKERS', Math.max(1, Math.min(2, os.availableParallelism() - 1)))
const WARMUP_MS = positiveNumber('BENCH_WARMUP_MS', 1000)
const DURATION_MS = positiveNumber('BENCH_DURATION_MS', 5000)
const ROUNDS = positiveNumber('BENCH_ROUNDS', 2)
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR

const path = '/api/client/features'
const adminToken = `*:*.${randomBytes(16).toString('hex')}`
const clientToken = `*:development.${randomBytes(16).toString('hex')}`

const sdkHeaders = sdkPollHeaders(clientToken)
const sdkCompression = { 'Accept-Encoding': 'gzip,deflate' }

interface Scenario {
  name: string
  headers: Record<string, string>
  status: number
}

interface Run {
  requests: number
  durationMs: number
  latency: LatencyHistogram
  bodyBytes: number
  headerBytes: number
  windowMs: number
  serverCpuMs: number
  clientCpuMs: number
  // Busy CPU on the machine outside the server under test and the load generator.
  otherCpuMs: number
  rssBytes: number
  roundRps: number[]
  errors: string[]
  unexpected: Record<string, number>
}

const newRun = (): Run => ({
  requests: 0,
  durationMs: 0,
  latency: new LatencyHistogram(),
  bodyBytes: 0,
  headerBytes: 0,
  windowMs: 0,
  serverCpuMs: 0,
  clientCpuMs: 0,
  otherCpuMs: 0,
  rssBytes: 0,
  roundRps: [],
  errors: [],
  unexpected: {},
})

interface CpuSample {
  at: number
  server: number
  client: number
  machine: number
}

const sampleCpu = (pid: number): CpuSample => {
  const client = process.cpuUsage()
  return { at: performance.now(), server: sampleProcess(pid).cpuMs, client: (client.user + client.system) / 1000, machine: sampleMachineCpu().busyMs }
}

const measure = async (server: ChildServer, scenario: Scenario, run: Run) => {
  let start: CpuSample | undefined
  let end: CpuSample | undefined
  const load = await runLoad({
    port: server.port,
    path,
    headers: scenario.headers,
    connections: CONNECTIONS,
    workers: WORKERS,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    onMeasureStart: () => (start = sampleCpu(server.pid)),
    onMeasureEnd: () => (end = sampleCpu(server.pid)),
  })
  if (!start || !end) throw new Error('the measured window was not sampled')
  run.requests += load.requests
  run.durationMs += load.durationMs
  run.latency.add(load.latency)
  run.bodyBytes += load.bodyBytesPerResponse * load.requests
  run.headerBytes += load.headerBytesPerResponse * load.requests
  const serverMs = end.server - start.server
  const clientMs = end.client - start.client
  run.windowMs += end.at - start.at
  run.serverCpuMs += serverMs
  run.clientCpuMs += clientMs
  run.otherCpuMs += Math.max(0, end.machine - start.machine - serverMs - clientMs)
  run.rssBytes = Math.max(run.rssBytes, sampleProcess(server.pid).rssBytes)
  run.roundRps.push(load.requestsPerSecond)
  for (const e of load.errors) if (!run.errors.includes(e)) run.errors.push(e)
  if (load.errorCount > 0) run.errors.push(`${load.errorCount} connection errors`)
  for (const [status, n] of Object.entries(load.statuses)) if (Number(status) !== scenario.status) run.unexpected[status] = (run.unexpected[status] ?? 0) + n
}

const expectEqual = (what: string, actual: unknown, expected: unknown) => {
  if (actual !== expected) throw new Error(`${what}: expected ${String(expected)}, got ${String(actual)}`)
}

const mib = (bytes: number) => fixed(bytes / 2 ** 20, 1)

const main = async () => {
  const machine = machineInfo()
  console.log(`GET ${path}, ${FLAGS} flags: our server vs a bare uWebSockets.js server with the same bytes`)
  console.log(describeMachine(machine))
  console.log(`load average before: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  console.log(
    `load: ${CONNECTIONS} keep-alive connections over ${WORKERS} worker threads, closed loop; ` +
      `${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured per run, ${ROUNDS} rounds interleaved (ours, baseline, ...)`,
  )

  const servers: ChildServer[] = []
  try {
    const ours = await startFlagServer({
      adminToken,
      clientToken,
      ...(PROFILE_DIR ? { nodeArgs: ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`] } : {}),
    })
    servers.push(ours)
    const api = new AdminApi(ours.url, adminToken)
    const seedStart = performance.now()
    await seedFeatures(api, realisticFeatures(FLAGS))
    console.log(`seeded ${FLAGS} flags through the admin API in ${fixed((performance.now() - seedStart) / 1000, 1)} s`)

    const identity = await rawGet(`${ours.url}${path}`, sdkHeaders)
    expectEqual('ours, plain GET status', identity.status, 200)
    const etag = String(identity.headers.etag)
    // Large bodies are compressed on the thread pool: the plain body is served until the copy is ready.
    let gzipped = await rawGet(`${ours.url}${path}`, { ...sdkHeaders, ...sdkCompression })
    for (let tries = 0; gzipped.headers['content-encoding'] !== 'gzip' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      gzipped = await rawGet(`${ours.url}${path}`, { ...sdkHeaders, ...sdkCompression })
    }
    expectEqual('ours, gzip GET content-encoding', gzipped.headers['content-encoding'], 'gzip')
    if (!gunzipSync(gzipped.body).equals(identity.body)) throw new Error('ours: the gzip body does not inflate to the plain body')
    const features = (JSON.parse(identity.body.toString()) as { features: unknown[] }).features.length
    expectEqual('flags in the body', features, FLAGS)
    console.log(`body: ${thousands(identity.body.length)} B plain, ${thousands(gzipped.body.length)} B gzip; etag ${etag}`)

    const baseline = await startConstantServer([
      {
        path,
        headers: { etag, 'content-type': String(identity.headers['content-type']), vary: 'Accept-Encoding' },
        body: identity.body,
        gzipBody: gzipped.body,
        etag,
      },
    ])
    servers.push(baseline)
    for (const [name, server] of [['ours', ours], ['baseline', baseline]] as const) {
      const plain = await rawGet(`${server.url}${path}`, sdkHeaders)
      if (!plain.body.equals(identity.body)) throw new Error(`${name}: the plain body differs`)
      const gzip = await rawGet(`${server.url}${path}`, { ...sdkHeaders, ...sdkCompression })
      if (!gzip.body.equals(gzipped.body)) throw new Error(`${name}: the gzip body differs`)
      const notModified = await rawGet(`${server.url}${path}`, { ...sdkHeaders, ...sdkCompression, 'If-None-Match': etag })
      expectEqual(`${name}: If-None-Match status`, notModified.status, 304)
    }
    console.log(`idle RSS after seeding: ours ${mib(sampleProcess(ours.pid).rssBytes)} MiB, baseline ${mib(sampleProcess(baseline.pid).rssBytes)} MiB`)

    const scenarios: Scenario[] = [
      { name: 'full body, identity', headers: sdkHeaders, status: 200 },
      { name: 'full body, gzip', headers: { ...sdkHeaders, ...sdkCompression }, status: 200 },
      { name: 'If-None-Match, 304', headers: { ...sdkHeaders, ...sdkCompression, 'If-None-Match': etag }, status: 304 },
    ]
    const results = new Map<string, { ours: Run; baseline: Run }>()
    for (const scenario of scenarios) {
      const runs = { ours: newRun(), baseline: newRun() }
      for (let round = 0; round < ROUNDS; round++) {
        await measure(ours, scenario, runs.ours)
        await measure(baseline, scenario, runs.baseline)
      }
      results.set(scenario.name, runs)
      console.log(`  done: ${scenario.name}`)
    }

    const after = await rawGet(`${ours.url}${path}`, sdkHeaders)
    expectEqual('etag after the load (nothing was written)', after.headers.etag, etag)

    const rows: string[][] = []
    for (const [name, runs] of results) {
      const line = (label: string, run: Run) => [
        `${name}: ${label}`,
        thousands((run.requests * 1000) / run.durationMs),
        run.roundRps.map((r) => thousands(r)).join(' / '),
        fixed(run.latency.percentileMs(0.5), 2),
        fixed(run.latency.percentileMs(0.99), 2),
        thousands(run.requests > 0 ? run.bodyBytes / run.requests : 0),
        thousands(run.requests > 0 ? run.headerBytes / run.requests : 0),
        fixed((run.serverCpuMs / run.windowMs) * 100, 0),
        fixed(run.requests > 0 ? (run.serverCpuMs * 1000) / run.requests : Number.NaN, 1),
        fixed((run.clientCpuMs / run.windowMs) * 100, 0),
        fixed((run.otherCpuMs / run.windowMs) * 100, 0),
        mib(run.rssBytes),
      ]
      const o = runs.ours
      const b = runs.baseline
      const perRequest = (run: Run) => (run.serverCpuMs * 1000) / run.requests
      rows.push(line('ours', o), line('baseline', b), [
        `${name}: ours/baseline`,
        ratio(o.requests / o.durationMs, b.requests / b.durationMs),
        '',
        ratio(o.latency.percentileMs(0.5), b.latency.percentileMs(0.5)),
        ratio(o.latency.percentileMs(0.99), b.latency.percentileMs(0.99)),
        ratio(o.bodyBytes / o.requests, b.bodyBytes / b.requests),
        ratio(o.headerBytes / o.requests, b.headerBytes / b.requests),
        '',
        ratio(perRequest(o), perRequest(b)),
        '',
        '',
        ratio(o.rssBytes, b.rssBytes),
      ])
    }
    console.log('')
    console.log(
      formatTable(
        ['scenario: server', 'req/s', 'req/s by round', 'p50 ms', 'p99 ms', 'body B', 'head B', 'server CPU %', 'server CPU µs/req', 'loadgen CPU %', 'other CPU %', 'RSS MiB'],
        rows,
      ),
    )
    console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
    console.log(
      'CPU % is of one core over the measured windows; server CPU µs/req is the server process\'s CPU time per counted response; ' +
        '"other" is busy CPU outside both processes (other programs on the machine: noise). RSS is the highest sample after a run.',
    )
    for (const [name, runs] of results) {
      for (const [label, run] of Object.entries(runs)) {
        if (run.errors.length > 0) console.log(`warning: ${name}, ${label}: ${run.errors.join('; ')}`)
        if (Object.keys(run.unexpected).length > 0) console.log(`warning: ${name}, ${label}: unexpected statuses ${JSON.stringify(run.unexpected)}`)
      }
    }
  } finally {
    for (const server of servers) await server.stop()
  }
}

await main()

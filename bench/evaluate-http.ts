// The evaluating read paths over HTTP, 1,000 flags: GET /api/frontend (a browser SDK's poll: every
// flag evaluated for one context) and POST /api/admin/playground (every flag explained), each beside
// a bare uWebSockets.js server answering the same route with the same bytes, interleaved.
// Run: npx tsc -p . && node dist/bench/evaluate-http.js   (knobs as in bench/README.md)
import { randomBytes } from 'node:crypto'
import os from 'node:os'
import { AdminApi } from './lib/admin-api.js'
import { startConstantServer, startFlagServer, type ChildServer } from './lib/child-server.js'
import { fixed, formatTable, ratio, thousands } from './lib/format-table.js'
import { LatencyHistogram } from './lib/latency-histogram.js'
import { describeMachine, machineInfo, sampleProcess } from './lib/machine-info.js'
import { realisticFeatures, seedFeatures } from './lib/realistic-features.js'
import { runLoad } from './lib/run-load.js'
import { positiveNumber } from './lib/settings.js'

const FLAGS = positiveNumber('BENCH_FLAGS', 1000)
const CONNECTIONS = positiveNumber('BENCH_CONNECTIONS', 16)
const WORKERS = positiveNumber('BENCH_WORKERS', 1)
const WARMUP_MS = positiveNumber('BENCH_WARMUP_MS', 1000)
const DURATION_MS = positiveNumber('BENCH_DURATION_MS', 5000)
const ROUNDS = positiveNumber('BENCH_ROUNDS', 2)

const adminToken = `*:*.${randomBytes(16).toString('hex')}`
const clientToken = `*:development.${randomBytes(16).toString('hex')}`
const frontendToken = `*:development.${randomBytes(16).toString('hex')}`

interface Scenario {
  name: string
  method: 'GET' | 'POST'
  path: string
  headers: Record<string, string>
  body?: string
}

interface Run {
  requests: number
  durationMs: number
  latency: LatencyHistogram
  serverCpuMs: number
  rssBytes: number
  bodyBytes: number
  unexpected: number
}

const newRun = (): Run => ({ requests: 0, durationMs: 0, latency: new LatencyHistogram(), serverCpuMs: 0, rssBytes: 0, bodyBytes: 0, unexpected: 0 })

const measure = async (server: ChildServer, scenario: Scenario, run: Run) => {
  let cpuStart = 0
  let cpuEnd = 0
  const load = await runLoad({
    port: server.port,
    method: scenario.method,
    path: scenario.path,
    headers: scenario.headers,
    body: scenario.body,
    connections: CONNECTIONS,
    workers: WORKERS,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    onMeasureStart: () => (cpuStart = sampleProcess(server.pid).cpuMs),
    onMeasureEnd: () => (cpuEnd = sampleProcess(server.pid).cpuMs),
  })
  run.requests += load.requests
  run.durationMs += load.durationMs
  run.latency.add(load.latency)
  run.serverCpuMs += cpuEnd - cpuStart
  run.bodyBytes += load.bodyBytesPerResponse * load.requests
  run.rssBytes = Math.max(run.rssBytes, sampleProcess(server.pid).rssBytes)
  for (const [status, n] of Object.entries(load.statuses)) if (status !== '200') run.unexpected += n
}

const fetchBytes = async (url: string, scenario: Scenario) => {
  const response = await fetch(url + scenario.path, { method: scenario.method, headers: scenario.headers, body: scenario.body })
  if (response.status !== 200) throw new Error(`${scenario.name}: ${response.status} ${await response.text()}`)
  return { body: Buffer.from(await response.arrayBuffer()), contentType: response.headers.get('content-type') ?? 'application/json' }
}

const main = async () => {
  console.log(`GET /api/frontend and POST /api/admin/playground, ${FLAGS} flags: our server vs bare uWebSockets.js with the same bytes`)
  console.log(describeMachine(machineInfo()))
  console.log(`load: ${CONNECTIONS} keep-alive connections, ${WORKERS} load thread(s), ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s per run, ${ROUNDS} rounds interleaved`)
  const servers: ChildServer[] = []
  try {
    const ours = await startFlagServer({ adminToken, clientToken, env: { INIT_FRONTEND_API_TOKENS: frontendToken } })
    servers.push(ours)
    await seedFeatures(new AdminApi(ours.url, adminToken), realisticFeatures(FLAGS))
    const context = { appName: 'bench-app', userId: 'user-4242', sessionId: 'session-17', remoteAddress: '10.1.2.3' }
    const scenarios: Scenario[] = [
      {
        name: 'frontend GET',
        method: 'GET',
        path: `/api/frontend?${new URLSearchParams({ ...context, plan: 'pro' }).toString()}`,
        headers: { Authorization: frontendToken, Accept: 'application/json' },
      },
      {
        name: 'playground POST',
        method: 'POST',
        path: '/api/admin/playground',
        headers: { Authorization: adminToken, 'Content-Type': 'application/json' },
        body: JSON.stringify({ environment: 'development', projects: '*', context: { ...context, properties: { plan: 'pro' } } }),
      },
    ]
    const answers = await Promise.all(scenarios.map((s) => fetchBytes(ours.url, s)))
    const toggles = (JSON.parse(answers[0].body.toString()) as { toggles: unknown[] }).toggles.length
    const explained = (JSON.parse(answers[1].body.toString()) as { features: unknown[] }).features.length
    console.log(`frontend answer: ${toggles} enabled flags, ${thousands(answers[0].body.length)} B; playground answer: ${explained} flags, ${thousands(answers[1].body.length)} B`)
    const baseline = await startConstantServer(
      scenarios.map((s, i) => ({ method: s.method, path: s.path.split('?')[0], headers: { 'content-type': answers[i].contentType }, body: answers[i].body })),
    )
    servers.push(baseline)

    const rows: string[][] = []
    for (const scenario of scenarios) {
      const runs = { ours: newRun(), baseline: newRun() }
      for (let round = 0; round < ROUNDS; round++) {
        await measure(ours, scenario, runs.ours)
        await measure(baseline, scenario, runs.baseline)
      }
      const perSecond = (run: Run) => (run.requests * 1000) / run.durationMs
      const cpuPerRequest = (run: Run) => (run.serverCpuMs * 1000) / Math.max(1, run.requests)
      const line = (label: string, run: Run) => [
        `${scenario.name}: ${label}`,
        thousands(perSecond(run)),
        thousands(perSecond(run) * FLAGS),
        fixed(run.latency.percentileMs(0.5), 2),
        fixed(run.latency.percentileMs(0.99), 2),
        fixed(cpuPerRequest(run), 1),
        fixed(run.rssBytes / 2 ** 20, 1),
        String(run.unexpected),
      ]
      rows.push(line('ours', runs.ours), line('baseline', runs.baseline), [
        `${scenario.name}: ours/baseline`,
        ratio(perSecond(runs.ours), perSecond(runs.baseline)),
        '',
        ratio(runs.ours.latency.percentileMs(0.5), runs.baseline.latency.percentileMs(0.5)),
        ratio(runs.ours.latency.percentileMs(0.99), runs.baseline.latency.percentileMs(0.99)),
        ratio(cpuPerRequest(runs.ours), cpuPerRequest(runs.baseline)),
        ratio(runs.ours.rssBytes, runs.baseline.rssBytes),
        '',
      ])
      console.log(`  done: ${scenario.name}`)
    }
    console.log('')
    console.log(formatTable(['scenario: server', 'req/s', 'flag evaluations/s', 'p50 ms', 'p99 ms', 'server CPU µs/req', 'RSS MiB', 'non-200'], rows))
    console.log(`load average after: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
    console.log('The baseline only sends stored bytes: the gap is routing, auth, parsing the context, evaluating every flag and serialising the answer.')
  } finally {
    for (const server of servers.reverse()) await server.stop()
  }
}

await main()

// The benchmark harness: `npm run bench` (bench/README.md). Seeds the same realistic flags into the server
// under test through its admin API (our server started from dist/, or any Unleash-API server given with
// --target), measures each HTTP case beside a bare uWebSockets.js server answering with the very bytes the
// server under test sent, interleaved in rounds, and the in-process evaluator beside unleash-client's.
// Prints a table, and writes a JSON and a Markdown report with an SVG latency chart under bench/results/.
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { closeSync, fdatasyncSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { uwsBuild } from '../src/http/uws.js'
import { AdminApi } from './lib/admin-api.js'
import { flagServerEnv, flagServerScript, startChildServer, startConstantServer, startFlagServer, tempDir, type ChildServer, type ConstantRoute, type FlagServerOptions } from './lib/child-server.js'
import type { MemoryReport } from './lib/memory-probe.js'
import { memoryColumns, memoryReport, memoryRow, probeArgs, startTimed, youngGenerationMiB, type TimedStart } from './lib/restart.js'
import { fixed, formatTable, ratio, thousands } from './lib/format-table.js'
import { LatencyHistogram } from './lib/latency-histogram.js'
import { machineInfo, sampleMachineCpu, sampleProcess, describeMachine } from './lib/machine-info.js'
import { rawGet } from './lib/raw-get.js'
import { createsRequests } from './lib/creates.js'
import { realisticFeatures, type FeatureFixture } from './lib/realistic-features.js'
import { describeSeeding, seedFlags, type SeedingReport, type SeedMethod } from './lib/seeding.js'
import { runLoad, type LoadOptions, type RequestSpec } from './lib/run-load.js'
import { findWrk, runWrk } from './lib/wrk.js'
import { sdkPollHeaders } from './lib/sdk-headers.js'

// `creates` adds flags: it runs last, so that every other case sees exactly --flags flags. `restart` (ours
// only) stops our server cleanly, starts it again on its data and times the first client features, then
// reports its memory; the cases after it run on the restarted server.
// Past this many flags the playground case runs only when --cases names it.
const playgroundUpTo = 20_000
const allCases = ['eval', 'client', 'client_gzip', 'client_304', 'frontend', 'ofrep', 'playground', 'writes', 'restart', 'creates'] as const
type CaseName = (typeof allCases)[number]

const usage = `npm run bench -- [options]

  --flags N              flags seeded (default 1000)
  --seed import|create   seed through the import API in batches of 1,000 (default), or one create,
                         strategy and enable call at a time
  --connections N        keep-alive connections per HTTP case (default 16)
  --duration SECONDS     measured time per run (default 5); each case runs --rounds times per server
  --warmup SECONDS       unmeasured time before each run (default 1)
  --rounds N             interleaved rounds per case and server (default 2)
  --cases LIST           any of ${allCases.join(',')}
                         (default: all; playground only up to ${playgroundUpTo.toLocaleString('en-US')} flags, past which one answer
                         is tens of MB and takes seconds)
  --json FILE            also write the JSON report to FILE
  --results-dir DIR      where the reports go (default bench/results)
  --target URL           measure this Unleash-API server instead of starting ours; needs the three tokens:
  --admin-token T        an admin token of the target (seeding, playground, writes, creates)
  --client-token T       a client (backend SDK) token for the development environment
  --frontend-token T     a frontend token for the development environment

Environment: BENCH_SERVER_MAIN=path/to/dist/src/main.js starts another build's server as ours (an older
commit's, to measure before and after); BENCH_NODE_ARGS adds node options; BENCH_PROFILE_DIR=dir runs ours
with --cpu-prof.
`

const fail = (message: string): never => {
  console.error(`${message}\n\n${usage}`)
  process.exit(2)
}

const { values: args } = parseArgs({
  options: {
    flags: { type: 'string' },
    seed: { type: 'string' },
    connections: { type: 'string' },
    duration: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    cases: { type: 'string' },
    json: { type: 'string' },
    'results-dir': { type: 'string' },
    target: { type: 'string' },
    'admin-token': { type: 'string' },
    'client-token': { type: 'string' },
    'frontend-token': { type: 'string' },
    help: { type: 'boolean' },
  },
  strict: true,
})
if (args.help) {
  console.log(usage)
  process.exit(0)
}

const positive = (name: string, raw: string | undefined, fallback: number, integer: boolean): number => {
  if (raw === undefined) return fallback
  const n = Number(raw)
  if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isSafeInteger(n))) fail(`--${name} must be a positive ${integer ? 'integer' : 'number'}, got "${raw}"`)
  return n
}

const FLAGS = positive('flags', args.flags, 1000, true)
const SEED: SeedMethod = args.seed === 'create' ? 'create' : 'import'
if (args.seed !== undefined && args.seed !== SEED) fail(`--seed must be import or create, got "${args.seed}"`)
const CONNECTIONS = positive('connections', args.connections, 16, true)
const DURATION_MS = positive('duration', args.duration, 5, false) * 1000
const WARMUP_MS = positive('warmup', args.warmup, 1, false) * 1000
const ROUNDS = positive('rounds', args.rounds, 2, true)
const cases = (args.cases ?? allCases.filter((c) => c !== 'playground' || FLAGS <= playgroundUpTo).join(',')).split(',').map((c) => c.trim()).filter((c) => c !== '')
for (const c of cases) if (!(allCases as readonly string[]).includes(c)) fail(`--cases: unknown case "${c}"`)
const selected = allCases.filter((c) => cases.includes(c))
if (selected.length === 0) fail('--cases names no case')
const has = (c: CaseName) => selected.includes(c)

let target: URL | undefined
if (args.target !== undefined) {
  try {
    target = new URL(args.target)
  } catch {
    fail(`--target: "${args.target}" is not a URL`)
  }
  if (target!.protocol !== 'http:') fail('--target: only http:// URLs (the load generator speaks plain HTTP/1.1)')
  for (const name of ['admin-token', 'client-token', 'frontend-token'] as const) if (!args[name]) fail(`--target needs --${name}`)
}
if (has('eval') && FLAGS % 100 !== 0) fail('--flags must be a multiple of 100 for the eval case')

const here = path.dirname(fileURLToPath(import.meta.url))
const repoRoot = path.resolve(here, '..', '..')
const resultsDir = path.resolve(args['results-dir'] ?? path.join(repoRoot, 'bench', 'results'))
const WORKERS = Math.max(1, Math.min(2, os.availableParallelism() - 1))
// wrk drives every case with one request per connection when it is installed (bench/lib/wrk.ts), and the
// creates, whose one request differs at each send only by its sequence number; the writes, whose
// connections each send their own requests, stay on the Node generator.
const wrk = findWrk()
const byWrk = (c: { request: RequestSpec; requestsFor?: unknown }) => wrk !== undefined && (!c.requestsFor || c.request.sequence !== undefined)
const generatorOf = (c: { request: RequestSpec; requestsFor?: unknown }) => (wrk && byWrk(c) ? `wrk ${wrk.version}` : 'node')
const loadDescription = `${wrk ? `wrk ${wrk.version} (${WORKERS} thread${WORKERS > 1 ? 's' : ''}), the writes on the Node generator` : 'the Node generator (bench/lib/run-load.ts; wrk is not installed)'} with ${WORKERS} load thread(s)`

// ---------------------------------------------------------------- progress

const interactive = process.stderr.isTTY === true
let lastProgress = ''
const progress = (message: string) => {
  if (interactive) process.stderr.write(`\r\x1b[2K${message}`)
  else if (message !== lastProgress) process.stderr.write(`${message}\n`)
  lastProgress = message
}
const endProgress = () => {
  if (interactive && lastProgress) process.stderr.write('\r\x1b[2K')
}

// ---------------------------------------------------------------- servers

interface Server {
  label: string
  host: string
  port: number
  // Prefix of every path (a target served under /unleash, say).
  base: string
  // Only for processes on this machine: CPU and RSS are sampled from /proc.
  pid?: number
  stop(): Promise<void>
}

const fromChild = (label: string, child: ChildServer): Server => ({ label, host: '127.0.0.1', port: child.port, base: '', pid: child.pid, stop: () => child.stop() })

const adminToken = args['admin-token'] ?? `*:*.${randomBytes(16).toString('hex')}`
const clientToken = args['client-token'] ?? `*:development.${randomBytes(16).toString('hex')}`
const frontendToken = args['frontend-token'] ?? `*:development.${randomBytes(16).toString('hex')}`

// What unleash-client 6.12 sends with its poll; minipass-fetch adds Accept-Encoding.
const sdkHeaders = sdkPollHeaders(clientToken)
const context = { appName: 'bench-app', userId: 'user-4242', sessionId: 'session-17', remoteAddress: '10.1.2.3', properties: { plan: 'pro', tenantId: 'tenant-7' } }

interface HttpCase {
  name: CaseName
  title: string
  request: RequestSpec
  status: number
  requestsFor?: (connection: number) => RequestSpec[]
  // What the baseline serves for it (none for writes).
  baseline?: ConstantRoute
  bodyBytes?: number
}

const fetchBody = async (server: Server, request: RequestSpec, status: number) => {
  const response = await fetch(`http://${server.host}:${server.port}${server.base}${request.path}`, { method: request.method, headers: request.headers, body: request.body })
  const body = Buffer.from(await response.arrayBuffer())
  if (response.status !== status) throw new Error(`${request.method} ${request.path}: expected ${status}, got ${response.status} ${body.toString().slice(0, 300)}`)
  return { body, contentType: response.headers.get('content-type') ?? 'application/json' }
}

const buildCases = async (server: Server, features: FeatureFixture[]): Promise<HttpCase[]> => {
  const out: HttpCase[] = []
  const url = (p: string) => `http://${server.host}:${server.port}${server.base}${p}`
  const clientPath = '/api/client/features'
  if (has('client') || has('client_gzip') || has('client_304')) {
    const plain = await rawGet(url('/api/client/features'), sdkHeaders)
    if (plain.status !== 200) throw new Error(`GET /api/client/features: ${plain.status} ${plain.body.toString().slice(0, 300)}`)
    const etag = String(plain.headers.etag ?? '')
    const gzipHeaders = { ...sdkHeaders, 'Accept-Encoding': 'gzip,deflate' }
    // Our server compresses large bodies off the main thread: the plain body is served until it is ready.
    let gzipped = await rawGet(url('/api/client/features'), gzipHeaders)
    for (let tries = 0; gzipped.headers['content-encoding'] !== 'gzip' && tries < 100; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      gzipped = await rawGet(url('/api/client/features'), gzipHeaders)
    }
    const headers: Record<string, string> = { 'content-type': String(plain.headers['content-type'] ?? 'application/json') }
    if (etag) headers.etag = etag
    const route: ConstantRoute = {
      path: '/api/client/features',
      headers,
      body: plain.body,
      gzipBody: gzipped.headers['content-encoding'] === 'gzip' ? gzipped.body : undefined,
      etag: etag || undefined,
    }
    if (has('client')) out.push({ name: 'client', title: 'GET /api/client/features', request: { method: 'GET', path: clientPath, headers: sdkHeaders }, status: 200, baseline: route, bodyBytes: plain.body.length })
    if (has('client_gzip')) {
      out.push({ name: 'client_gzip', title: 'GET /api/client/features, gzip', request: { method: 'GET', path: clientPath, headers: gzipHeaders }, status: 200, baseline: route, bodyBytes: gzipped.body.length })
    }
    if (has('client_304')) {
      if (!etag) throw new Error('the server sent no ETag: the client_304 case cannot run')
      out.push({ name: 'client_304', title: 'GET /api/client/features, If-None-Match (304)', request: { method: 'GET', path: clientPath, headers: { ...gzipHeaders, 'If-None-Match': etag } }, status: 304, baseline: route, bodyBytes: 0 })
    }
  }
  if (has('frontend')) {
    const request = { method: 'POST', path: '/api/frontend', headers: { Authorization: frontendToken, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ context }) }
    const { body, contentType } = await fetchBody(server, request, 200)
    out.push({ name: 'frontend', title: 'POST /api/frontend', request, status: 200, baseline: { method: 'POST', path: '/api/frontend', headers: { 'content-type': contentType }, body }, bodyBytes: body.length })
  }
  if (has('ofrep')) {
    // OpenFeature's web provider polling: the bulk evaluation, with the frontend case's context.
    const { appName, userId, sessionId, remoteAddress, properties } = context
    const body = JSON.stringify({ context: { targetingKey: userId, appName, sessionId, remoteAddress, ...properties } })
    const request = { method: 'POST', path: '/ofrep/v1/evaluate/flags', headers: { Authorization: frontendToken, 'Content-Type': 'application/json', Accept: 'application/json' }, body }
    const { body: answer, contentType } = await fetchBody(server, request, 200)
    out.push({ name: 'ofrep', title: 'POST /ofrep/v1/evaluate/flags', request, status: 200, baseline: { method: 'POST', path: '/ofrep/v1/evaluate/flags', headers: { 'content-type': contentType }, body: answer }, bodyBytes: answer.length })
  }
  if (has('playground')) {
    const request = {
      method: 'POST',
      path: '/api/admin/playground',
      headers: { Authorization: adminToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ environment: 'development', projects: '*', context }),
    }
    const { body, contentType } = await fetchBody(server, request, 200)
    out.push({ name: 'playground', title: 'POST /api/admin/playground', request, status: 200, baseline: { method: 'POST', path: '/api/admin/playground', headers: { 'content-type': contentType }, body }, bodyBytes: body.length })
  }
  if (has('writes')) {
    // Each connection updates its own flag's description, alternating two texts so each write is a change.
    const write = (feature: FeatureFixture, text: string): RequestSpec => ({
      method: 'PUT',
      path: `/api/admin/projects/default/features/${encodeURIComponent(feature.name)}`,
      headers: { Authorization: adminToken, 'Content-Type': 'application/json' },
      body: JSON.stringify({ description: text, type: feature.type }),
    })
    const requestsFor = (connection: number) => {
      const feature = features[connection % features.length]
      return [write(feature, `bench write ${connection} a`), write(feature, `bench write ${connection} b`)]
    }
    out.push({ name: 'writes', title: 'PUT flag metadata (durable write)', request: requestsFor(0)[0], requestsFor, status: 200 })
  }
  if (has('creates')) {
    // Each connection creates new flags in project default, one request per flag, at the seeded size.
    const requestsFor = createsRequests({ adminToken })
    out.push({ name: 'creates', title: 'POST a new flag (durable write)', request: requestsFor(0)[0], requestsFor, status: 201 })
  }
  return out
}

// ---------------------------------------------------------------- measuring

interface Run {
  requests: number
  durationMs: number
  latency: LatencyHistogram
  cpuMs: number
  // The load generator's CPU, and the machine's busy CPU outside server and generator, in the measured window.
  generatorCpuMs: number
  otherCpuMs: number
  // Wall time between the samples of the measured window (a little more than durationMs: wrk's start and exit).
  windowMs: number
  rssBytes: number
  anonBytes: number
  bodyBytes: number
  unexpected: Record<string, number>
  errors: string[]
}

const newRun = (): Run => ({ requests: 0, durationMs: 0, latency: new LatencyHistogram(), cpuMs: 0, generatorCpuMs: 0, otherCpuMs: 0, windowMs: 0, rssBytes: 0, anonBytes: 0, bodyBytes: 0, unexpected: {}, errors: [] })

const measure = async (server: Server, c: HttpCase, run: Run) => {
  let cpuStart = 0
  let cpuEnd = 0
  let machineStart = 0
  let machineEnd = 0
  let windowStart = 0
  let windowEnd = 0
  const options: LoadOptions = {
    host: server.host,
    port: server.port,
    allowRemote: target !== undefined,
    method: c.request.method,
    path: server.base + c.request.path,
    headers: c.request.headers,
    body: c.request.body,
    requestsFor: c.requestsFor && ((connection) => c.requestsFor!(connection).map((r) => ({ ...r, path: server.base + r.path }))),
    connections: CONNECTIONS,
    workers: WORKERS,
    warmupMs: WARMUP_MS,
    durationMs: DURATION_MS,
    onMeasureStart: () => {
      windowStart = performance.now()
      machineStart = sampleMachineCpu().busyMs
      cpuStart = server.pid === undefined ? 0 : sampleProcess(server.pid).cpuMs
    },
    onMeasureEnd: () => {
      cpuEnd = server.pid === undefined ? 0 : sampleProcess(server.pid).cpuMs
      machineEnd = sampleMachineCpu().busyMs
      windowEnd = performance.now()
    },
  }
  let load: Awaited<ReturnType<typeof runLoad>>
  let generatorCpuMs: number
  if (wrk && byWrk(c)) {
    const run = await runWrk(wrk, { ...options, requestsFor: undefined, sequence: c.request.sequence, threads: WORKERS })
    load = run
    generatorCpuMs = run.generatorCpuMs
  } else {
    load = await runLoad(options)
    // The Node generator's figure covers its warm-up too.
    generatorCpuMs = (load.clientCpuPercent / 100) * load.durationMs
  }
  run.requests += load.requests
  run.durationMs += load.durationMs
  run.latency.add(load.latency)
  run.cpuMs += cpuEnd - cpuStart
  run.generatorCpuMs += generatorCpuMs
  run.windowMs += windowEnd - windowStart
  run.otherCpuMs += Math.max(0, machineEnd - machineStart - (cpuEnd - cpuStart) - generatorCpuMs)
  run.bodyBytes += load.bodyBytesPerResponse * load.requests
  if (server.pid !== undefined) {
    const sample = sampleProcess(server.pid)
    run.rssBytes = Math.max(run.rssBytes, sample.rssBytes)
    run.anonBytes = Math.max(run.anonBytes, sample.anonBytes)
  }
  for (const [status, n] of Object.entries(load.statuses)) if (Number(status) !== c.status) run.unexpected[status] = (run.unexpected[status] ?? 0) + n
  for (const e of load.errors) if (!run.errors.includes(e)) run.errors.push(e)
}

export interface HttpResult {
  case: CaseName
  title: string
  server: string
  loadGenerator: string
  requests: number
  requestsPerSecond: number
  p50Ms: number
  p99Ms: number
  p999Ms: number
  cpuMicrosPerRequest: number | null
  // Of one core, over the measured time: the server's, the load generator's, and the rest of the machine's.
  serverCpuPercent: number | null
  generatorCpuPercent: number
  otherCpuPercent: number
  rssMiB: number | null
  anonMiB: number | null
  bodyBytesPerResponse: number
  unexpectedStatuses: Record<string, number>
  errors: string[]
}

const summarise = (c: HttpCase, server: Server, run: Run): HttpResult => ({
  case: c.name,
  title: c.title,
  server: server.label,
  loadGenerator: generatorOf(c),
  requests: run.requests,
  requestsPerSecond: (run.requests * 1000) / Math.max(1, run.durationMs),
  p50Ms: run.latency.percentileMs(0.5),
  p99Ms: run.latency.percentileMs(0.99),
  p999Ms: run.latency.percentileMs(0.999),
  cpuMicrosPerRequest: server.pid === undefined ? null : (run.cpuMs * 1000) / Math.max(1, run.requests),
  serverCpuPercent: server.pid === undefined ? null : (run.cpuMs / Math.max(1, run.windowMs)) * 100,
  generatorCpuPercent: (run.generatorCpuMs / Math.max(1, run.windowMs)) * 100,
  otherCpuPercent: (run.otherCpuMs / Math.max(1, run.windowMs)) * 100,
  rssMiB: server.pid === undefined ? null : run.rssBytes / 2 ** 20,
  anonMiB: server.pid === undefined ? null : run.anonBytes / 2 ** 20,
  bodyBytesPerResponse: run.requests > 0 ? run.bodyBytes / run.requests : 0,
  unexpectedStatuses: run.unexpected,
  errors: run.errors,
})

// The disk's own limit for durable writes: fdatasync of a small append, in the temp directory's filesystem.
const measureFsync = () => {
  const dir = tempDir('fsync-bench-')
  const fd = openSync(path.join(dir, 'probe'), 'w')
  const block = Buffer.alloc(4096, 1)
  const times: number[] = []
  try {
    for (let i = 0; i < 200; i++) {
      writeSync(fd, block)
      const started = performance.now()
      fdatasyncSync(fd)
      times.push(performance.now() - started)
    }
  } finally {
    closeSync(fd)
    rmSync(dir, { recursive: true, force: true })
  }
  times.sort((a, b) => a - b)
  const p50Ms = times[Math.floor(times.length / 2)]
  return { fsyncP50Ms: p50Ms, fsyncP99Ms: times[Math.floor(times.length * 0.99)], writesPerSecondLimitAtTwo: 2 / (p50Ms / 1000) }
}

interface EvalEngine {
  label: string
  evaluationsPerSecond: number
  mean: number
  p50: number
  p99: number
  p999: number
  enabled: number
}

const runEval = (): Promise<{ flags: number; evaluationsPerEngine: number; engines: EvalEngine[] }> =>
  new Promise((resolve, reject) => {
    const file = path.join(tempDir('eval-bench-'), 'eval.json')
    const child = spawn(process.execPath, ['--expose-gc', path.join(here, 'eval.js')], {
      env: { ...process.env, BENCH_FLAGS: String(FLAGS), BENCH_EVAL_JSON: file },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('exit', (code) => {
      try {
        if (code !== 0) throw new Error(`the eval case exited with ${code}:\n${output}`)
        resolve(JSON.parse(readFileSync(file, 'utf8')))
      } catch (error) {
        reject(error)
      } finally {
        rmSync(path.dirname(file), { recursive: true, force: true })
      }
    })
  })

// ---------------------------------------------------------------- reports

const chart = (results: HttpResult[]): string => {
  const rows = results.filter((r) => Number.isFinite(r.p50Ms))
  const labelWidth = 330
  const plotWidth = 520
  const rowHeight = 34
  const top = 40
  const height = top + rows.length * rowHeight + 40
  const maxMs = Math.max(1, ...rows.map((r) => r.p999Ms))
  const minMs = Math.min(0.1, ...rows.map((r) => r.p50Ms).filter((v) => v > 0))
  const lo = Math.log10(minMs)
  const hi = Math.log10(maxMs) + 0.05
  const x = (ms: number) => labelWidth + ((Math.log10(Math.max(ms, minMs)) - lo) / (hi - lo)) * plotWidth
  const colours = { p50: '#2f6fb0', p99: '#e08a1e', p999: '#c0392b' }
  const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;')
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${labelWidth + plotWidth + 30}" height="${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="10" y="20" font-size="14" font-weight="bold">Latency per path and server (ms, log scale): p50, p99, p99.9</text>`,
  ]
  for (let decade = Math.floor(lo); decade <= Math.ceil(hi); decade++) {
    const ms = 10 ** decade
    if (ms < minMs || ms > 10 ** hi) continue
    parts.push(`<line x1="${x(ms)}" y1="${top - 5}" x2="${x(ms)}" y2="${height - 30}" stroke="#ddd"/>`)
    parts.push(`<text x="${x(ms)}" y="${height - 15}" text-anchor="middle">${ms >= 1 ? ms : ms.toFixed(-decade)}</text>`)
  }
  rows.forEach((r, i) => {
    const y = top + i * rowHeight
    parts.push(`<text x="${labelWidth - 8}" y="${y + 17}" text-anchor="end">${escape(`${r.case}: ${r.server}`)}</text>`)
    const bars: [keyof typeof colours, number][] = [['p999', r.p999Ms], ['p99', r.p99Ms], ['p50', r.p50Ms]]
    bars.forEach(([key, ms], j) => {
      parts.push(`<rect x="${labelWidth}" y="${y + 4 + j * 9}" width="${Math.max(1, x(ms) - labelWidth).toFixed(1)}" height="8" fill="${colours[key]}"><title>${key} ${fixed(ms, 3)} ms</title></rect>`)
    })
  })
  parts.push(
    ...Object.entries(colours).map(
      ([key, colour], i) => `<rect x="${labelWidth + plotWidth - 200 + i * 70}" y="8" width="10" height="10" fill="${colour}"/><text x="${labelWidth + plotWidth - 186 + i * 70}" y="17">${key === 'p999' ? 'p99.9' : key}</text>`,
    ),
  )
  parts.push('</svg>')
  return parts.join('\n')
}

const httpTable = (results: HttpResult[]) => {
  const rows: string[][] = []
  for (const name of selected) {
    const forCase = results.filter((r) => r.case === name)
    for (const r of forCase) {
      rows.push([
        `${r.case}: ${r.server}`,
        r.cpuMicrosPerRequest === null ? '-' : fixed(r.cpuMicrosPerRequest, 1),
        thousands(r.requestsPerSecond),
        fixed(r.p50Ms, 2),
        fixed(r.p99Ms, 2),
        fixed(r.p999Ms, 2),
        r.serverCpuPercent === null ? '-' : fixed(r.serverCpuPercent, 0),
        `${fixed(r.generatorCpuPercent, 0)} (${r.loadGenerator.split(' ')[0]})`,
        fixed(r.otherCpuPercent, 0),
        r.rssMiB === null ? '-' : fixed(r.rssMiB, 1),
        r.anonMiB === null ? '-' : fixed(r.anonMiB, 1),
        thousands(r.bodyBytesPerResponse),
        String(Object.values(r.unexpectedStatuses).reduce((a, b) => a + b, 0) + r.errors.length),
      ])
    }
    if (forCase.length === 2) {
      const [a, b] = forCase
      rows.push([
        `${name}: ${a.server}/${b.server}`,
        a.cpuMicrosPerRequest !== null && b.cpuMicrosPerRequest !== null ? ratio(a.cpuMicrosPerRequest, b.cpuMicrosPerRequest) : '-',
        ratio(a.requestsPerSecond, b.requestsPerSecond),
        ratio(a.p50Ms, b.p50Ms),
        ratio(a.p99Ms, b.p99Ms),
        ratio(a.p999Ms, b.p999Ms),
        '',
        '',
        '',
        '',
        '',
        '',
        '',
      ])
    }
  }
  return formatTable(['case: server', 'server CPU µs/req', 'req/s', 'p50 ms', 'p99 ms', 'p99.9 ms', 'server CPU %', 'load CPU %', 'other CPU %', 'RSS MiB', 'anon MiB', 'body B', 'unexpected'], rows)
}

const evalTable = (engines: EvalEngine[]) =>
  formatTable(
    ['engine', 'evaluations/s', 'ns/eval mean', 'p50 ns', 'p99 ns', 'p99.9 ns', 'enabled'],
    engines.map((e) => [e.label, thousands(e.evaluationsPerSecond), fixed(e.mean, 0), fixed(e.p50, 0), fixed(e.p99, 0), fixed(e.p999, 0), thousands(e.enabled)]),
  )

// ---------------------------------------------------------------- restart

interface RestartReport {
  flags: number
  stopMs: number
  start: Omit<TimedStart, 'server'>
  // After two full collections: ours before the stop (seeded and served through the API), an empty
  // server's, ours right after the restart's first answer, the same once idle (V8 gives back the young
  // generation that the start-up's decode grew when it sees the server idle, some 20-40 s on), and
  // after one frontend request (the evaluator compiled for the environment).
  memory: { beforeStop: MemoryReport | undefined; empty: MemoryReport; restarted: MemoryReport; settled: MemoryReport; withEvaluator: MemoryReport }
  settledAfterMs: number
  heapBytesPerFlag: number
  heapBytesPerFlagWithEvaluator: number
  loadAverage: number[]
}

const MiB = 2 ** 20

// Stops our server cleanly (the snapshot set is written), measures an empty server's memory on its own data
// directory for reference, then starts ours again on its data with the memory probe; it replaces ours
// in `servers` for the cases after it.
const restartStep = async (subject: Server, servers: Server[], ours: FlagServerOptions, probed: ChildServer | undefined): Promise<[Server, RestartReport]> => {
  // A server with SDKs has answered a poll since its last change (the cases before may have written):
  // one poll, as an SDK's, so that the stop finds its answers current, as it would in service.
  const poll = await fetch(`http://${subject.host}:${subject.port}/api/client/features`, { headers: sdkHeaders })
  await poll.arrayBuffer()
  const beforeStop = probed && probed.pid === subject.pid ? await memoryReport(probed) : undefined
  progress(`restart: stopping our server at ${thousands(FLAGS)} flags cleanly ...`)
  const stopBegan = performance.now()
  await subject.stop()
  const stopMs = performance.now() - stopBegan
  progress('restart: an empty server for reference ...')
  const emptyRoot = tempDir('flag-bench-empty-')
  let empty: MemoryReport
  try {
    const emptyServer = await startChildServer({ name: 'empty flag server', script: flagServerScript(ours), nodeArgs: probeArgs, env: flagServerEnv(ours, path.join(emptyRoot, 'data')) })
    empty = await memoryReport(emptyServer).finally(() => emptyServer.stop())
  } finally {
    rmSync(emptyRoot, { recursive: true, force: true })
  }
  progress(`restart: starting our server on its ${thousands(FLAGS)} flags ...`)
  const { server, ...start } = await startTimed({ script: flagServerScript(ours), env: flagServerEnv(ours, ours.dataDir!), nodeArgs: [...probeArgs, ...(ours.nodeArgs ?? [])], clientToken })
  const restarted = await memoryReport(server)
  progress('restart: waiting for the server to settle (its young generation given back, at most 90 s) ...')
  const settleBegan = performance.now()
  let settled = restarted
  while (youngGenerationMiB(settled) > 4 && performance.now() - settleBegan < 90_000) {
    await new Promise((resolve) => setTimeout(resolve, 10_000))
    settled = await memoryReport(server)
  }
  const settledAfterMs = performance.now() - settleBegan
  const frontend = await fetch(`${server.url}/api/frontend`, { method: 'POST', headers: { authorization: frontendToken, 'content-type': 'application/json' }, body: JSON.stringify({ context }) })
  await frontend.arrayBuffer()
  if (frontend.status !== 200) throw new Error(`POST /api/frontend after the restart: ${frontend.status}`)
  const withEvaluator = await memoryReport(server)
  const restartedServer = fromChild('ours', server)
  servers[servers.indexOf(subject)] = restartedServer
  const perFlag = (report: MemoryReport) => (report.heapUsed - empty.heapUsed) / FLAGS
  return [
    restartedServer,
    { flags: FLAGS, stopMs, start, memory: { beforeStop, empty, restarted, settled, withEvaluator }, settledAfterMs, heapBytesPerFlag: perFlag(restarted), heapBytesPerFlagWithEvaluator: perFlag(withEvaluator), loadAverage: os.loadavg() },
  ]
}

const describeRestart = (r: RestartReport) => {
  const s = (ms: number) => fixed(ms / 1000, 2)
  const perFlag = (m: MemoryReport) => fixed((m.heapUsed - r.memory.empty.heapUsed) / r.flags, 0)
  return [
    `restart at ${thousands(r.flags)} flags (load ${r.loadAverage.map((l) => fixed(l, 2)).join(' ')}): clean stop ${s(r.stopMs)} s; ` +
      `${s(r.start.firstFeaturesMs)} s to the first client features (${s(r.start.listeningMs)} s to listening, ${s(r.start.headersMs)} s to its headers; ` +
      `server CPU ${s(r.start.cpuMs)} s, ${s(r.start.mainCpuMs)} s of it on the main thread; body ${fixed(r.start.bodyBytes / MiB, 1)} MiB)`,
    r.start.startUpLine,
    '',
    formatTable(
      ['memory after full GC', ...memoryColumns],
      [
        ...(r.memory.beforeStop ? [memoryRow('before the stop (seeded through the API, served)', r.memory.beforeStop, perFlag(r.memory.beforeStop))] : []),
        memoryRow('empty server', r.memory.empty, '-'),
        memoryRow('after the restart (at its first answer)', r.memory.restarted, fixed(r.heapBytesPerFlag, 0)),
        memoryRow(`the same, settled (${s(r.settledAfterMs)} s later, idle)`, r.memory.settled, perFlag(r.memory.settled)),
        memoryRow('+ one frontend request (evaluator compiled)', r.memory.withEvaluator, fixed(r.heapBytesPerFlagWithEvaluator, 0)),
      ],
    ),
  ].join('\n')
}

// ---------------------------------------------------------------- main

const main = async () => {
  const started = new Date()
  const machine = machineInfo()
  const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { name: string; version: string }
  // The build this Node loads is the one both servers load: they run on the same node binary.
  const uwsVersion = `${uwsBuild().name} ${uwsBuild().version}`
  const sdkVersion = (JSON.parse(readFileSync(path.join(repoRoot, 'node_modules', 'unleash-client', 'package.json'), 'utf8')) as { version: string }).version
  console.log(`${pkg.name} benchmark: ${selected.join(', ')}; ${FLAGS} flags, ${CONNECTIONS} connections, ${ROUNDS} x (${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s) per case and server`)
  console.log(describeMachine(machine))
  console.log(target ? `server under test: ${target.href}` : 'server under test: ours (dist/src/main.js), on a temporary data directory')
  console.log(`load: ${loadDescription}`)

  let evalResult: Awaited<ReturnType<typeof runEval>> | undefined
  if (has('eval')) {
    progress('eval: our evaluator beside unleash-client, in process ...')
    evalResult = await runEval()
  }

  const servers: Server[] = []
  const results: HttpResult[] = []
  let disk: ReturnType<typeof measureFsync> | undefined
  let seeding: SeedingReport | undefined
  const features = realisticFeatures(FLAGS)
  let targetVersion: string | undefined
  const httpSelected = selected.filter((c) => c !== 'eval')
  let ours: FlagServerOptions | undefined
  let dataRoot: string | undefined
  let restart: RestartReport | undefined
  let probed: ChildServer | undefined
  try {
    if (httpSelected.length > 0) {
      let subject: Server
      if (target) {
        subject = { label: 'target', host: target.hostname, port: Number(target.port || 80), base: target.pathname.replace(/\/$/, ''), stop: async () => {} }
      } else {
        progress('starting our server ...')
        const profileDir = process.env.BENCH_PROFILE_DIR
        const nodeArgs = [
          ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg.length > 0),
          ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(profileDir)}`] : []),
        ]
        // Unleash's default limit is 5,000 flags: ours is started with room for the dataset and the
        // creates case, and for an import batch of 1,000 realistic flags (about 2 MB).
        const env = {
          INIT_FRONTEND_API_TOKENS: frontendToken,
          UNLEASH_FEATURE_FLAGS_LIMIT: String(FLAGS + 1_000_000),
          MAX_BODY_BYTES: String(16 * 2 ** 20),
        }
        dataRoot = tempDir('flag-bench-')
        // BENCH_SERVER_MAIN: another build's dist/src/main.js (an older commit's, say), measured by this harness.
        const script = process.env.BENCH_SERVER_MAIN ? path.resolve(process.env.BENCH_SERVER_MAIN) : undefined
        ours = { adminToken, clientToken, env, nodeArgs, dataDir: path.join(dataRoot, 'data'), script }
        // With the memory probe where the restart step will ask for its memory before the stop.
        probed = await startFlagServer(has('restart') ? { ...ours, nodeArgs: [...probeArgs, ...nodeArgs] } : ours)
        subject = fromChild('ours', probed)
      }
      servers.push(subject)
      const baseUrl = `http://${subject.host}:${subject.port}${subject.base}`
      const api = new AdminApi(baseUrl, adminToken)
      targetVersion = await fetch(`${baseUrl}/api/admin/ui-config`, { headers: { Authorization: adminToken } })
        .then(async (r) => (r.ok ? ((await r.json()) as { version?: string }).version : undefined))
        .catch(() => undefined)
      const existing = await fetch(`${baseUrl}/api/admin/projects/default/features/${encodeURIComponent(features[0].name)}`, { headers: { Authorization: adminToken } })
      if (existing.status === 200) progress(`the flags are there already (${features[0].name}): not seeding again`)
      else {
        let seeded = 0
        progress(`seeding ${FLAGS} flags through the admin API ...`)
        const timer = setInterval(() => progress(`seeding ${FLAGS} flags through the admin API (${SEED}): ${seeded} done`), 500)
        try {
          seeding = await seedFlags(api, features, { method: SEED, pid: subject.pid, progress: (done) => (seeded = done) })
        } finally {
          clearInterval(timer)
        }
      }
      const httpCases = await buildCases(subject, features)
      const routes = httpCases.flatMap((c) => (c.baseline ? [c.baseline] : [])).filter((r, i, all) => all.findIndex((o) => o.path === r.path && o.method === r.method) === i)
      if (routes.length > 0) servers.push(fromChild('bare uWS', await startConstantServer(routes)))
      if (has('writes') || has('creates')) disk = measureFsync()

      const steps = httpCases.reduce((n, c) => n + (c.baseline ? 2 : 1) * ROUNDS, 0)
      let step = 0
      for (const c of httpCases) {
        if (c.name === 'creates' && has('restart') && ours) [subject, restart] = await restartStep(subject, servers, ours, probed)
        const against = c.baseline ? servers : [subject]
        const runs = against.map(() => newRun())
        for (let round = 0; round < ROUNDS; round++) {
          for (let i = 0; i < against.length; i++) {
            step++
            progress(`[${step}/${steps}] ${c.name}: ${against[i].label}, round ${round + 1} of ${ROUNDS}${runs[i].requests > 0 ? ` (${thousands(runs[i].requests)} requests so far)` : ""}`)
            await measure(against[i], c, runs[i])
          }
        }
        against.forEach((server, i) => results.push(summarise(c, server, runs[i])))
      }
      if (has('restart') && !has('creates') && ours) [subject, restart] = await restartStep(subject, servers, ours, probed)
    }
  } finally {
    endProgress()
    for (const server of servers.reverse()) await server.stop()
    if (dataRoot !== undefined) rmSync(dataRoot, { recursive: true, force: true })
  }

  const report = {
    startedAt: started.toISOString(),
    finishedAt: new Date().toISOString(),
    machine: { ...machine, loadAverage: os.loadavg() },
    versions: { [pkg.name]: pkg.version, node: process.version, 'uWebSockets.js': uwsVersion, 'unleash-client': sdkVersion, ...(targetVersion ? { target: targetVersion } : {}) },
    options: { flags: FLAGS, seed: SEED, connections: CONNECTIONS, durationSeconds: DURATION_MS / 1000, warmupSeconds: WARMUP_MS / 1000, rounds: ROUNDS, loadThreads: WORKERS, loadGenerator: wrk ? `wrk ${wrk.version}` : 'node', cases: selected, target: target?.href ?? null },
    dataset: { generator: 'bench/lib/realistic-features.ts', seed: 20240601, flags: FLAGS, project: 'default', environment: 'development', context },
    seeding: seeding ?? null,
    restart: restart ?? null,
    http: results,
    disk: disk ?? null,
    eval: evalResult ?? null,
  }

  const sections: string[] = []
  if (seeding) sections.push(describeSeeding(seeding))
  if (restart) sections.push(describeRestart(restart))
  if (results.length > 0) sections.push(httpTable(results))
  if (disk) {
    const writes = results.find((r) => r.case === 'writes') ?? results.find((r) => r.case === 'creates')
    sections.push(
      `disk: fdatasync p50 ${fixed(disk.fsyncP50Ms, 2)} ms, p99 ${fixed(disk.fsyncP99Ms, 2)} ms; the limit for 2 writers waiting on their own fsync is ${thousands(disk.writesPerSecondLimitAtTwo)} writes/s` +
        (writes ? `; ${writes.case} reached ${ratio(writes.requestsPerSecond, disk.writesPerSecondLimitAtTwo)} of it at ${CONNECTIONS} connections` : ''),
    )
  }
  if (evalResult) sections.push(evalTable(evalResult.engines))
  console.log('')
  console.log(sections.join('\n\n'))

  mkdirSync(resultsDir, { recursive: true })
  const stamp = started.toISOString().replace(/[:.]/g, '-')
  const jsonFile = path.join(resultsDir, `bench-${stamp}.json`)
  const mdFile = path.join(resultsDir, `bench-${stamp}.md`)
  const svgFile = path.join(resultsDir, `bench-${stamp}.svg`)
  writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`)
  if (args.json) writeFileSync(path.resolve(args.json), `${JSON.stringify(report, null, 2)}\n`)
  if (results.length > 0) writeFileSync(svgFile, chart(results))
  const md = [
    `# Benchmark, ${report.startedAt}`,
    '',
    `- machine: ${describeMachine(machine)}; load average at the end ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`,
    `- versions: ${Object.entries(report.versions).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `- server under test: ${target ? target.href : 'ours, started from dist/src/main.js'}; baseline: bare uWebSockets.js sending the same bytes`,
    `- dataset: ${FLAGS} flags from bench/lib/realistic-features.ts (seed 20240601) in project default, environment development`,
    `- load: ${loadDescription}; ${CONNECTIONS} keep-alive connections, closed loop; ${ROUNDS} interleaved rounds of ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s per case and server`,
    '',
    ...(results.length > 0 ? [`![latency per path and server](${path.basename(svgFile)})`, ''] : []),
    ...sections.flatMap((s) => [s, '']),
    'Server CPU µs/req (the figure to compare; req/s depends on who waits for whom) is only known for servers on this machine; CPU % are of one core. "other CPU %" is the rest of the machine while the case ran: above a few %, the run was disturbed. "unexpected" counts responses with another status than the case expects, and connection errors.',
    '',
  ].join('\n')
  writeFileSync(mdFile, md)
  console.log(`\nreports: ${path.relative(process.cwd(), mdFile) || mdFile}, ${path.relative(process.cwd(), jsonFile) || jsonFile}`)
  const broken = results.filter((r) => r.requests === 0 || Object.keys(r.unexpectedStatuses).length > 0)
  if (broken.length > 0) {
    console.error(`unexpected answers in: ${broken.map((r) => `${r.case} (${r.server}: ${JSON.stringify(r.unexpectedStatuses)} ${r.errors.join('; ')})`).join(', ')}`)
    process.exitCode = 1
  }
}

await main()

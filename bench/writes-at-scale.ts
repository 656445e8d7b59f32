// Writes as the flags grow (issue 26): our server from dist/ is seeded through the import API in batches
// of BENCH_BATCH (1,000) flags up to each size of BENCH_SIZES (1000,20000,50000), the time of each batch
// noted (and the last fifth of the batches on their own: 40,000 to 50,000 flags of 50,000, the import
// target of issue 26), and at each size single flag creations run for BENCH_DURATION_MS with BENCH_CONNECTIONS (16)
// connections: creates/s, p50/p99 and the server's CPU per create (from /proc), then as long of updates
// (each connection changes one seeded flag's description, the harness's writes case). The creates add
// flags of their own, counted in the next size.
// Run: node scripts/build.mjs && node dist/bench/writes-at-scale.js
// BENCH_SERVER_ENV="NAME=value ..." adds to the server's environment (SNAPSHOT_EVERY=100000000, say, to
// see the writes without the snapshot sets they cause).
// BENCH_SERVER_MAIN=path/to/dist/src/main.js measures another build's server.
// Beside the creates: how many a commit held and how long a commit took from append to durable (the
// server's Prometheus metrics, over the warm-up too): 16 connections wait on one commit at a time per
// project, so creates/s is at most creates per commit over that time (plus the turn of a reply).
// BENCH_PROFILE_DIR=dir runs the server with --cpu-prof and prints, per size, where the server's time
// went during the creates only (the profile's samples in that window), per create.
import { randomBytes } from 'node:crypto'
import { readdirSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { AdminApi } from './lib/admin-api.js'
import { startFlagServer } from './lib/child-server.js'
import { createsRequests } from './lib/creates.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo, sampleProcess } from './lib/machine-info.js'
import { formatSummary, summariseProfile } from './lib/profile-summary.js'
import { realisticFeatures, registerStrategyTypes } from './lib/realistic-features.js'
import { runLoad, type LoadOptions, type RequestSpec } from './lib/run-load.js'
import { seedByImport } from './lib/seed-import.js'
import { positiveInteger } from './lib/settings.js'
import { findWrk, runWrk } from './lib/wrk.js'

const sizes = (process.env.BENCH_SIZES ?? '1000,20000,50000').split(',').map(Number)
if (sizes.some((n, i) => !Number.isSafeInteger(n) || n <= 0 || (i > 0 && n <= sizes[i - 1]))) throw new Error('BENCH_SIZES: increasing positive integers')
const BATCH = positiveInteger('BENCH_BATCH', 1000)
const CONNECTIONS = positiveInteger('BENCH_CONNECTIONS', 16)
const DURATION_MS = positiveInteger('BENCH_DURATION_MS', 5000)
const WARMUP_MS = positiveInteger('BENCH_WARMUP_MS', 1000)
const WORKERS = Math.max(1, Math.min(2, os.availableParallelism() - 1))
const profileDir = process.env.BENCH_PROFILE_DIR ? path.resolve(process.env.BENCH_PROFILE_DIR) : undefined

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN
}
const nowMicros = () => Number(process.hrtime.bigint() / 1000n)
const load = () => os.loadavg().map((l) => l.toFixed(1)).join(' ')

const adminToken = `*:*.${randomBytes(16).toString('hex')}`
const clientToken = `*:development.${randomBytes(16).toString('hex')}`

// The creates on wrk when it is installed, as in run.ts; the updates (each connection its own flag) on the Node generator.
const wrk = findWrk()
console.log(
  `writes at scale: sizes ${sizes.join(', ')}; import batches of ${BATCH}; creates with ${CONNECTIONS} connections, ${WARMUP_MS / 1000} s + ${DURATION_MS / 1000} s; creates on ${wrk ? `wrk ${wrk.version}` : 'the Node generator (wrk is not installed)'}, updates on the Node generator`,
)
console.log(describeMachine(machineInfo()))

const features = realisticFeatures(sizes[sizes.length - 1])
const server = await startFlagServer({
  adminToken,
  clientToken,
  // Room for the creates on top of the largest size.
  env: {
    UNLEASH_FEATURE_FLAGS_LIMIT: '10000000',
    MAX_BODY_BYTES: String(64 * 2 ** 20),
    ...Object.fromEntries((process.env.BENCH_SERVER_ENV ?? '').split(' ').filter((pair) => pair.includes('=')).map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)])),
  },
  nodeArgs: profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [],
  // Another build's server (an older commit's dist/src/main.js), to compare builds with the same load.
  script: process.env.BENCH_SERVER_MAIN,
})
// The server's commits so far (its Prometheus metrics): how many, their records, and the seconds from
// append to durable commit, summed.
const commitCounts = async () => {
  const text = await (await fetch(`${server.url}/internal-backstage/prometheus`)).text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN)
  return { commits: value('flagwright_commit_duration_seconds_count'), seconds: value('flagwright_commit_duration_seconds_sum'), records: value('flagwright_events_appended_total') }
}
const updateWindows: { size: number; from: number; to: number; updates: number }[] = []
const windows: { size: number; from: number; to: number; creates: number; importFrom: number; importTo: number; batches: number }[] = []
const rows: string[][] = []
try {
  const api = new AdminApi(server.url, adminToken)
  await registerStrategyTypes(api, features)
  const requestsFor = createsRequests({ adminToken })
  const update = (name: string, text: string): RequestSpec => ({
    method: 'PUT',
    path: `/api/admin/projects/default/features/${encodeURIComponent(name)}`,
    headers: { Authorization: adminToken, 'Content-Type': 'application/json' },
    body: JSON.stringify({ description: text, type: 'release' }),
  })
  const updatesFor = (connection: number) => [update(features[connection].name, `update ${connection} a`), update(features[connection].name, `update ${connection} b`)]
  let seeded = 0
  let created = 0
  for (const size of sizes) {
    const target = Math.max(seeded, size - created)
    const cpuBefore = sampleProcess(server.pid).cpuMs
    const importFrom = nowMicros()
    // The last fifth of the batches (40,000 to 50,000 of 50,000: issue 26's import target) on its own.
    const lastFifthFrom = Math.floor(Math.ceil((target - seeded) / BATCH) * 0.8)
    let lastFifthCpuFrom = cpuBefore
    let batchesDone = 0
    const times = await seedByImport(api, features.slice(seeded, target), {
      batchSize: BATCH,
      onBatch: () => {
        if (++batchesDone === lastFifthFrom) lastFifthCpuFrom = sampleProcess(server.pid).cpuMs
      },
    })
    const importTo = nowMicros()
    const importCpuEnd = sampleProcess(server.pid).cpuMs
    const importCpuMs = importCpuEnd - cpuBefore
    const lastFifth = times.slice(lastFifthFrom)
    seeded = target
    const measure = async (requests: (connection: number) => RequestSpec[]) => {
      const commitsBefore = await commitCounts()
      let cpuStart = 0
      let cpuEnd = 0
      let from = 0
      let to = 0
      const options: LoadOptions = {
        port: server.port,
        path: '/',
        headers: {},
        requestsFor: requests,
        connections: CONNECTIONS,
        workers: WORKERS,
        warmupMs: WARMUP_MS,
        durationMs: DURATION_MS,
        onMeasureStart: () => {
          from = nowMicros()
          cpuStart = sampleProcess(server.pid).cpuMs
        },
        onMeasureEnd: () => {
          to = nowMicros()
          cpuEnd = sampleProcess(server.pid).cpuMs
        },
      }
      const sequenced = requests(0)[0]
      const result =
        wrk && sequenced.sequence !== undefined
          ? await runWrk(wrk, { ...options, ...sequenced, requestsFor: undefined, threads: WORKERS })
          : await runLoad(options)
      const commitsAfter = await commitCounts()
      const commits = commitsAfter.commits - commitsBefore.commits
      return {
        result,
        from,
        to,
        cpuMs: cpuEnd - cpuStart,
        // Over the warm-up and the measured time: what a commit held and how long it took to be durable.
        recordsPerCommit: (commitsAfter.records - commitsBefore.records) / Math.max(1, commits),
        commitMs: (1000 * (commitsAfter.seconds - commitsBefore.seconds)) / Math.max(1, commits),
      }
    }
    const creates = await measure(requestsFor)
    const { result, from, to, cpuMs } = creates
    const ok = result.statuses['201'] ?? 0
    const startCount = seeded + created
    // Every 201, in the warm-up too, is a flag more (the measured ones are counted in ok).
    const found = (await api.request('GET', '/api/admin/search/features?project=IS:default&limit=1')) as { total: number }
    created = found.total - seeded
    windows.push({ size, from, to, creates: ok, importFrom, importTo, batches: times.length })
    const other = Object.entries(result.statuses).filter(([s]) => s !== '201')
    // Then updates of flags that exist: each connection changes one seeded flag's description (the
    // harness's writes case).
    const updates = await measure(updatesFor)
    updateWindows.push({ size, from: updates.from, to: updates.to, updates: updates.result.statuses['200'] ?? 0 })
    rows.push([
      thousands(startCount),
      thousands(seeded + created),
      times.length > 0 ? `${fixed(percentile(times, 0.5), 0)} / ${fixed(Math.max(...times), 0)}` : '-',
      times.length > 0 ? fixed(importCpuMs / times.length, 0) : '-',
      lastFifth.length > 0 ? `${fixed(percentile(lastFifth, 0.5), 0)}, ${fixed((importCpuEnd - lastFifthCpuFrom) / lastFifth.length, 0)}` : '-',
      thousands(result.requestsPerSecond),
      fixed(result.latency.percentileMs(0.5), 2),
      fixed(result.latency.percentileMs(0.99), 2),
      fixed((cpuMs * 1000) / Math.max(1, ok), 0),
      `${fixed(creates.recordsPerCommit, 1)}, ${fixed(creates.commitMs, 2)}`,
      thousands(updates.result.requestsPerSecond),
      fixed(updates.result.latency.percentileMs(0.99), 2),
      fixed((updates.cpuMs * 1000) / Math.max(1, updates.result.statuses['200'] ?? 0), 0),
      other.length > 0 || result.errors.length > 0 ? `${other.map(([s, n]) => `${s}: ${n}`).join(', ')} ${result.errors.join('; ')}` : '0',
      load(),
    ])
    console.error(`${thousands(size)} flags: ${rows[rows.length - 1].join(' | ')}`)
  }
} finally {
  await server.stop()
}

console.log('')
console.log(
  formatTable(
    ['flags at start', 'flags after', 'import ms/batch p50 / max', 'import server CPU ms/batch', 'last fifth of the batches: ms p50, CPU ms/batch', 'creates/s', 'p50 ms', 'p99 ms', 'server CPU µs/create', 'creates per commit, ms from append to durable', 'updates/s', 'p99 ms', 'server CPU µs/update', 'unexpected', 'load avg'],
    rows,
  ),
)

if (profileDir) {
  const file = readdirSync(profileDir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => path.join(profileDir, f))
    .sort()
    .pop()
  if (file) {
    // The windows, for reading the profile again (summariseProfile(file, from, to)).
    writeFileSync(path.join(profileDir, 'windows.json'), `${JSON.stringify({ file, windows, updateWindows }, null, 2)}\n`)
    for (const w of windows) {
      if (w.batches > 0) {
        console.log(`\nprofile of the import batches up to ${thousands(w.size)} flags (${file}), ms per batch:`)
        console.log(formatSummary(summariseProfile(file, w.importFrom, w.importTo), 25, w.batches, 'ms'))
      }
      console.log(`\nprofile of the creates at ${thousands(w.size)} flags (${file}), µs per create:`)
      console.log(formatSummary(summariseProfile(file, w.from, w.to), 25, Math.max(1, w.creates) / 1000, 'µs'))
    }
    for (const w of updateWindows) {
      console.log(`\nprofile of the updates at ${thousands(w.size)} flags (${file}), µs per update:`)
      console.log(formatSummary(summariseProfile(file, w.from, w.to), 25, Math.max(1, w.updates) / 1000, 'µs'))
    }
  }
}

// Start-up and memory at scale (issue 26): seeds --flags realistic flags through the import API (1,000
// per batch), then reports
// - memory: RSS and V8 heap (after two full collections) before and after a restart, and heap bytes
//   per flag (the heap over that of the same server before seeding, per flag);
// - start-up: from spawning `node dist/src/main.js` to the first 200 of GET /api/client/features, after
//   a clean stop (snapshot current) and after SIGKILL (a few hundred records behind the snapshot), with
//   the server's own `start-up:` line (its phases);
// - snapshot pauses: the event loop's longest block while flags are toggled under load and two snapshot
//   sets are written (one is due every SNAPSHOT_EVERY (--snapshot-every) records, or every half as many
//   records as there are flags when that is more), with the count of sets the server says it wrote;
// - admin lists: each list of every flag (GET /api/admin/features, the project's features, the project
//   with them), its size and time, and the event loop's longest block while it was made.
// Run: node scripts/build.mjs && node dist/bench/startup-memory.js --flags 50000
// (--data DIR keeps the data directory, --seed-only stops after seeding, BENCH_SERVER_MAIN=path/main.js
// measures another build.)
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { AdminApi, forEachLimited } from './lib/admin-api.js'
import { tempDir, type ChildServer } from './lib/child-server.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo } from './lib/machine-info.js'
import type { MemoryReport } from './lib/memory-probe.js'
import { memoryColumns, memoryReport, memoryRow, probeArgs, startTimed } from './lib/restart.js'
import { realisticFeatures, registerStrategyTypes, type FeatureFixture } from './lib/realistic-features.js'

const { values: args } = parseArgs({
  options: {
    flags: { type: 'string' },
    batch: { type: 'string' },
    'kill-after': { type: 'string' },
    'snapshot-every': { type: 'string' },
    'load-writes': { type: 'string' },
    // A data directory to use and keep (created when missing); flags already there are not seeded again.
    data: { type: 'string' },
    // Seed (into --data), stop cleanly and end there: for profiling start-ups by hand.
    'seed-only': { type: 'boolean' },
  },
})
const count = (name: string, value: string | undefined, fallback: number) => {
  const n = value === undefined ? fallback : Number(value)
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`)
  return n
}
const FLAGS = count('flags', args.flags, 1000)
const BATCH = count('batch', args.batch, 1000)
// Records written after the last snapshot before the SIGKILL.
const KILL_AFTER = count('kill-after', args['kill-after'], 300)
const SNAPSHOT_EVERY = count('snapshot-every', args['snapshot-every'], 5000)
// The server writes a set after SNAPSHOT_EVERY records or after half as many as there are flags, whichever
// is more (server.ts): at 50,000 flags every 25,000.
const SET_EVERY = Math.max(SNAPSHOT_EVERY, Math.ceil(FLAGS / 2))
// Flag toggles under load while snapshot sets are written (each toggle is one record): two sets.
const LOAD_WRITES = count('load-writes', args['load-writes'], 2 * SET_EVERY + 100)

const here = path.dirname(fileURLToPath(import.meta.url))
// Another build's server (an older commit's dist/src/main.js, to compare); by default this one's.
const main = process.env.BENCH_SERVER_MAIN ? path.resolve(process.env.BENCH_SERVER_MAIN) : path.join(here, '..', 'src', 'main.js')
// A kept data directory keeps its tokens: the same secret each run, so no start adds a token.
const secret = args.data === undefined ? randomBytes(16).toString('hex') : 'bench-startup-memory'
const adminToken = `*:*.${secret}`
const clientToken = `*:development.${secret}`
const frontendToken = `*:development.${secret}-frontend`

const MiB = 2 ** 20

const say = (line: string) => console.log(line)

const start = (dataDir: string) =>
  startTimed({
    script: main,
    nodeArgs: probeArgs,
    clientToken,
    env: {
      HTTP_HOST: '127.0.0.1',
      HTTP_PORT: '0',
      DATA_DIR: dataDir,
      INIT_ADMIN_API_TOKENS: adminToken,
      INIT_CLIENT_API_TOKENS: clientToken,
      INIT_FRONTEND_API_TOKENS: frontendToken,
      UNLEASH_FEATURE_FLAGS_LIMIT: String(FLAGS + 1000),
      SNAPSHOT_EVERY: String(SNAPSHOT_EVERY),
      // Its debug lines: each snapshot set written (and each release of the data file's pages).
      LOG_LEVEL: 'debug',
      // 1,000 realistic flags are about 3 MB of import body.
      MAX_BODY_BYTES: String(16 * 2 ** 20),
    },
  })

const phaseLine = (server: ChildServer) => /start-up: [^\n"]*/.exec(server.output())?.[0] ?? '(no start-up line)'
const replayedOf = (server: ChildServer) => Number(/(\d+) events replayed/.exec(server.output())?.[1] ?? NaN)
const setsWritten = (server: ChildServer) => server.output().split('snapshots written').length - 1

const memory = memoryReport

const killHard = async (server: ChildServer) => {
  process.kill(server.pid, 'SIGKILL')
  for (;;) {
    try {
      process.kill(server.pid, 0)
    } catch {
      return
    }
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

// The bench fixtures in the features-batch export format, enabled in development.
const importBody = (features: readonly FeatureFixture[]) => ({
  project: 'default',
  environment: 'development',
  data: {
    features: features.map(({ name, type, description, impressionData }) => ({ name, type, description, impressionData })),
    featureStrategies: features.flatMap((feature) => feature.strategies.map((strategy) => ({ ...strategy, featureName: feature.name }))),
    featureEnvironments: features.map((feature) => ({ name: feature.name, featureName: feature.name, environment: 'development', enabled: true })),
  },
})

const toggle = (api: AdminApi, name: string, on: boolean) =>
  api.request('POST', `/api/admin/projects/default/features/${encodeURIComponent(name)}/environments/development/${on ? 'on' : 'off'}`)

const loadAverage = () => os.loadavg().map((n) => fixed(n, 2)).join(' ')

const run = async () => {
  say(`start-up and memory at ${thousands(FLAGS)} flags (SNAPSHOT_EVERY ${thousands(SNAPSHOT_EVERY)})`)
  say(describeMachine(machineInfo()))
  const root = args.data === undefined ? tempDir('startup-memory-') : undefined
  const dataDir = root === undefined ? path.resolve(args.data!) : path.join(root, 'data')
  const rows: string[][] = []
  try {
    let { server } = await start(dataDir)
    let api = new AdminApi(server.url, adminToken)
    const empty = await memory(server)
    const features = realisticFeatures(FLAGS)
    await registerStrategyTypes(api, features)
    const batchMs: number[] = []
    const there = await fetch(`${server.url}/api/admin/projects/default/features/${encodeURIComponent(features[features.length - 1].name)}`, { headers: { authorization: adminToken } })
    for (let i = there.status === 200 ? features.length : 0; i < features.length; i += BATCH) {
      const began = performance.now()
      await api.request('POST', '/api/admin/features-batch/import', importBody(features.slice(i, i + BATCH)))
      batchMs.push(performance.now() - began)
    }
    batchMs.sort((a, b) => a - b)
    say(`seeded ${thousands(FLAGS)} flags in ${batchMs.length} imports: p50 ${fixed(batchMs[batchMs.length >> 1] ?? 0, 0)} ms, max ${fixed(batchMs[batchMs.length - 1] ?? 0, 0)} ms per batch; load ${loadAverage()}`)
    await fetch(`${server.url}/api/client/features`, { headers: { authorization: clientToken } }).then((r) => r.arrayBuffer())
    const seeded = await memory(server)
    const perFlag = (report: MemoryReport) => (FLAGS > 0 ? fixed((report.heapUsed - empty.heapUsed) / FLAGS, 0) : '-')
    const row = (label: string, report: MemoryReport) => memoryRow(label, report, perFlag(report))

    const stopBegan = performance.now()
    await server.stop()
    const stopMs = performance.now() - stopBegan
    if (args['seed-only']) {
      say(`seeded and stopped (${fixed(stopMs / 1000, 2)} s to stop); data in ${dataDir}`)
      say(formatTable(['memory (after full GC)', ...memoryColumns], [row('empty server', empty), row(`${thousands(FLAGS)} flags seeded`, seeded)]))
      return
    }

    // Clean restart: the snapshot set is at the end of the log.
    const clean = await start(dataDir)
    server = clean.server
    api = new AdminApi(server.url, adminToken)
    const cleanPhases = phaseLine(server)
    const restarted = await memory(server)
    say(`clean restart: ${fixed(clean.firstFeaturesMs / 1000, 2)} s to the first client features (${fixed(clean.listeningMs / 1000, 2)} s to listening, ${fixed(clean.headersMs / 1000, 2)} s to its headers, ${fixed(clean.cpuMs / 1000, 2)} s of server CPU, ${fixed(clean.mainCpuMs / 1000, 2)} s of it on the main thread), ${thousands(replayedOf(server))} replayed; ${cleanPhases}; load ${loadAverage()}`)

    // Snapshot sets written under load: flags toggled at 8 connections while the probe watches the event loop
    // (after the flag search's index is warmed, 2 s after serving began).
    const names = features.map((f) => f.name)
    await new Promise((resolve) => setTimeout(resolve, 3000))
    await memory(server)
    const setsBefore = setsWritten(server)
    const loadBegan = performance.now()
    await forEachLimited(
      Array.from({ length: LOAD_WRITES }, (_, i) => i),
      8,
      (i) => toggle(api, names[(i >> 1) % names.length], i % 2 === 1) as Promise<never>,
    )
    const loadSeconds = (performance.now() - loadBegan) / 1000
    const underLoad = await memory(server)
    const sets = setsWritten(server) - setsBefore
    say(`${thousands(LOAD_WRITES)} toggles at 8 connections in ${fixed(loadSeconds, 1)} s, ${sets} snapshot sets written (one due every ${thousands(SET_EVERY)}): longest event-loop block ${fixed(underLoad.maxBlockMs, 0)} ms, p99 ${fixed(underLoad.p99BlockMs, 0)} ms; load ${loadAverage()}`)

    // The admin lists of every flag, one at a time while the probe watches the event loop: their answers grow
    // with the flags (106 MB at 50,000), so they are made a slice at a time.
    const lists: string[] = []
    for (const list of ['/api/admin/features', '/api/admin/projects/default/features', '/api/admin/projects/default']) {
      await memory(server)
      const began = performance.now()
      const answer = await fetch(`${server.url}${list}`, { headers: { authorization: adminToken } })
      const bytes = (await answer.arrayBuffer()).byteLength
      const ms = performance.now() - began
      const listed = await memory(server)
      if (answer.status !== 200) throw new Error(`GET ${list}: ${answer.status}`)
      lists.push(`GET ${list}: ${fixed(bytes / MiB, 1)} MiB in ${fixed(ms, 0)} ms, longest event-loop block ${fixed(listed.maxBlockMs, 0)} ms`)
      say(lists[lists.length - 1])
    }

    // SIGKILL with KILL_AFTER records after the last snapshot set.
    const sinceSnapshot = LOAD_WRITES % SET_EVERY
    const more = (KILL_AFTER - sinceSnapshot + SET_EVERY) % SET_EVERY
    await forEachLimited(Array.from({ length: more }, (_, i) => i), 8, (i) => toggle(api, names[(i >> 1) % names.length], i % 2 === 1) as Promise<never>)
    await killHard(server)
    const killed = await start(dataDir)
    server = killed.server
    const killedPhases = phaseLine(server)
    const afterKill = await memory(server)
    // The frontend API evaluates through the precompiled evaluator, compiled for the environment on
    // its first use: what it adds per flag.
    const frontend = await fetch(`${server.url}/api/frontend`, {
      method: 'POST',
      headers: { authorization: frontendToken, 'content-type': 'application/json' },
      body: JSON.stringify({ context: { appName: 'web', userId: 'user-123456', properties: { country: 'no' } } }),
    })
    await frontend.arrayBuffer()
    if (frontend.status !== 200) throw new Error(`POST /api/frontend: ${frontend.status}`)
    const withEvaluator = await memory(server)
    say(`after SIGKILL: ${fixed(killed.firstFeaturesMs / 1000, 2)} s to the first client features (${fixed(killed.listeningMs / 1000, 2)} s to listening, ${fixed(killed.headersMs / 1000, 2)} s to its headers, ${fixed(killed.cpuMs / 1000, 2)} s of server CPU, ${fixed(killed.mainCpuMs / 1000, 2)} s of it on the main thread), ${thousands(replayedOf(server))} replayed; ${killedPhases}; load ${loadAverage()}`)
    await server.stop()

    rows.push(row('empty server', empty), row(`${thousands(FLAGS)} flags seeded`, seeded), row('after a clean restart', restarted), row('after SIGKILL and restart', afterKill), row('and one frontend request (evaluator compiled)', withEvaluator))
    say('')
    say(formatTable(['memory (after full GC)', ...memoryColumns], rows))
    say('')
    say(
      formatTable(
        ['start-up', 'to first client features, s', 'to listening, s', 'to its headers, s', 'server CPU to first features, s', 'of it main thread, s', 'replayed', 'phases'],
        [
          ['clean stop (snapshot current)', fixed(clean.firstFeaturesMs / 1000, 2), fixed(clean.listeningMs / 1000, 2), fixed(clean.headersMs / 1000, 2), fixed(clean.cpuMs / 1000, 2), fixed(clean.mainCpuMs / 1000, 2), thousands(replayedOf(clean.server)), cleanPhases],
          ['after SIGKILL', fixed(killed.firstFeaturesMs / 1000, 2), fixed(killed.listeningMs / 1000, 2), fixed(killed.headersMs / 1000, 2), fixed(killed.cpuMs / 1000, 2), fixed(killed.mainCpuMs / 1000, 2), thousands(replayedOf(killed.server)), killedPhases],
        ],
      ),
    )
    say('')
    say(`clean stop (writes the snapshot set): ${fixed(stopMs / 1000, 2)} s; client features body ${fixed(clean.bodyBytes / MiB, 1)} MiB`)
    say(`snapshot sets under load: longest event-loop block ${fixed(underLoad.maxBlockMs, 0)} ms (p99 ${fixed(underLoad.p99BlockMs, 0)} ms) over ${thousands(LOAD_WRITES)} toggles, ${sets} sets written`)
    for (const line of lists) say(line)
    say(`load average at the end: ${loadAverage()}`)
  } finally {
    if (root !== undefined) rmSync(root, { recursive: true, force: true })
  }
}

await run()

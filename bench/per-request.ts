// The SDK per-request paths of issue 26 under wrk, for A/B work on a busy machine: the 304 of
// GET /api/client/features and POST /api/frontend, on our server (one build, or two: before and after)
// and on bare uWebSockets.js answering the same bytes, round-robin in the same minutes, at each number
// of connections. Prints server CPU µs per response first, then req/s, and the ratios to bare uWS per
// round and overall. Needs wrk on the PATH.
//
// Run: node scripts/build.mjs && node dist/bench/per-request.js
// Knobs: BENCH_CONNECTIONS (2,32), BENCH_ROUNDS (3), BENCH_DURATION_MS (4000), BENCH_WARMUP_MS (1000),
// BENCH_CASES (client_304,frontend), BENCH_FLAGS (1000), BENCH_BEFORE_MAIN (another build's
// dist/src/main.js, measured as "before" beside this one), BENCH_NODE_ARGS (for our server), BENCH_PERF_DIR (perf record -g of each server
// during each of its measured runs, with --perf-basic-prof; V8's --cpu-prof counts the uWS callbacks as
// idle, since they run inside libuv's poll phase).
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { AdminApi, forEachLimited } from './lib/admin-api.js'
import { startConstantServer, startFlagServer, type ChildServer, type ConstantRoute } from './lib/child-server.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo, sampleMachineCpu, sampleProcess } from './lib/machine-info.js'
import { rawGet } from './lib/raw-get.js'
import { realisticFeatures, registerStrategyTypes, seedFeature } from './lib/realistic-features.js'
import { positiveInteger } from './lib/settings.js'
import { findWrk, runWrk } from './lib/wrk.js'
import { sdkPollHeaders } from './lib/sdk-headers.js'

const FLAGS = positiveInteger('BENCH_FLAGS', 1000)
const ROUNDS = positiveInteger('BENCH_ROUNDS', 3)
const DURATION_MS = positiveInteger('BENCH_DURATION_MS', 4000)
const WARMUP_MS = positiveInteger('BENCH_WARMUP_MS', 1000)
const CONNECTIONS = (process.env.BENCH_CONNECTIONS || '2,32').split(',').map(Number)
const CASES = (process.env.BENCH_CASES || 'client_304,frontend').split(',')
const PERF_DIR = process.env.BENCH_PERF_DIR ? path.resolve(process.env.BENCH_PERF_DIR) : undefined

const wrk = findWrk()
if (!wrk) throw new Error('wrk is not installed (Debian: apt-get install wrk)')

const adminToken = `*:*.${randomBytes(16).toString('hex')}`
const clientToken = `*:development.${randomBytes(16).toString('hex')}`
const frontendToken = `*:development.${randomBytes(16).toString('hex')}`
// As bench/run.ts: what unleash-client 6.12 sends with its poll, and a browser SDK's context.
const sdkHeaders = { ...sdkPollHeaders(clientToken), 'Accept-Encoding': 'gzip,deflate' }
const context = { appName: 'bench-app', userId: 'user-4242', sessionId: 'session-17', remoteAddress: '10.1.2.3', properties: { plan: 'pro', tenantId: 'tenant-7' } }

interface Subject {
  label: string
  server: ChildServer
  ours: boolean
}

interface Case {
  name: string
  method: string
  path: string
  headers: Record<string, string>
  body?: string
}

const startOurs = async (label: string, script: string | undefined): Promise<Subject> => {
  const env = { INIT_FRONTEND_API_TOKENS: frontendToken, UNLEASH_FEATURE_FLAGS_LIMIT: String(Math.max(5000, FLAGS + 100)) }
  const nodeArgs = [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''), ...(PERF_DIR ? ['--perf-basic-prof'] : [])]
  const server = await startFlagServer({ adminToken, clientToken, env, nodeArgs, script })
  const api = new AdminApi(server.url, adminToken)
  const features = realisticFeatures(FLAGS)
  await registerStrategyTypes(api, features)
  await forEachLimited(features, 8, (feature) => seedFeature(api, feature))
  return { label, server, ours: true }
}

const perfRecord = (pid: number, file: string, ms: number) =>
  new Promise<void>((resolve) => {
    const child = spawn('perf', ['record', '-F', '1999', '-g', '-p', String(pid), '-o', file, '--', 'sleep', String(ms / 1000)], { stdio: 'ignore' })
    child.once('exit', () => resolve())
    child.once('error', () => resolve())
  })

interface Tally {
  requests: number
  cpuMs: number
  systemMs: number
  wallMs: number
  durationMs: number
  otherMs: number
}

const main = async () => {
  console.log(`per-request paths under wrk ${wrk.version} (-t1); ${describeMachine(machineInfo())}`)
  console.log(`${FLAGS} flags; cases ${CASES.join(', ')}; connections ${CONNECTIONS.join(', ')}; ${ROUNDS} rounds of ${WARMUP_MS / 1000} s + ${DURATION_MS / 1000} s; load average ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  const subjects: Subject[] = []
  try {
    const [after, before] = await Promise.all([
      startOurs(process.env.BENCH_BEFORE_MAIN ? 'after' : 'ours', undefined),
      process.env.BENCH_BEFORE_MAIN ? startOurs('before', path.resolve(process.env.BENCH_BEFORE_MAIN)) : Promise.resolve(undefined),
    ])
    if (before) subjects.push(before)
    subjects.push(after)
    const cases: Case[] = []
    const routes: ConstantRoute[] = []
    const url = `${after.server.url}/api/client/features`
    if (CASES.includes('client_304')) {
      const plain = await rawGet(url, sdkHeaders)
      const etag = String(plain.headers.etag)
      if (before) {
        const theirs = await rawGet(`${before.server.url}/api/client/features`, sdkHeaders)
        if (String(theirs.headers.etag).split(':')[0] !== etag.split(':')[0]) console.log(`note: the builds' ETags differ (${theirs.headers.etag} / ${etag}); each is asked with its own`)
      }
      routes.push({ path: '/api/client/features', headers: { 'content-type': String(plain.headers['content-type']), etag }, body: plain.body, etag })
      cases.push({ name: 'client_304', method: 'GET', path: '/api/client/features', headers: { ...sdkHeaders, 'If-None-Match': etag } })
    }
    if (CASES.includes('frontend')) {
      const request = { method: 'POST', path: '/api/frontend', headers: { Authorization: frontendToken, 'Content-Type': 'application/json', Accept: 'application/json' }, body: JSON.stringify({ context }) }
      const response = await fetch(`${after.server.url}${request.path}`, request)
      const body = Buffer.from(await response.arrayBuffer())
      if (response.status !== 200) throw new Error(`POST /api/frontend: ${response.status} ${body.toString().slice(0, 300)}`)
      routes.push({ method: 'POST', path: '/api/frontend', headers: { 'content-type': response.headers.get('content-type') ?? 'application/json' }, body })
      cases.push({ name: 'frontend', ...request })
    }
    subjects.push({ label: 'bare uWS', server: await startConstantServer(routes), ours: false })
    if (PERF_DIR) mkdirSync(PERF_DIR, { recursive: true })

    const rows: string[][] = []
    for (const c of cases) {
      for (const connections of CONNECTIONS) {
        const tallies = subjects.map((): Tally => ({ requests: 0, cpuMs: 0, systemMs: 0, wallMs: 0, durationMs: 0, otherMs: 0 }))
        const perRound: string[] = []
        for (let round = 0; round < ROUNDS; round++) {
          const roundRps: number[] = []
          for (const [i, subject] of subjects.entries()) {
            // Each build is asked with the ETag it gave (the ETag carries a hash of the query's key).
            let headers = c.headers
            if (c.name === 'client_304' && subject.ours) {
              const own = await rawGet(`${subject.server.url}/api/client/features`, sdkHeaders)
              headers = { ...c.headers, 'If-None-Match': String(own.headers.etag) }
            }
            let cpuStart = 0
            let systemStart = 0
            let machineStart = 0
            let wallStart = 0
            let perf: Promise<void> | undefined
            const load = await runWrk(wrk, {
              port: subject.server.port,
              method: c.method,
              path: c.path,
              headers,
              body: c.body,
              connections,
              warmupMs: WARMUP_MS,
              durationMs: DURATION_MS,
              onMeasureStart: () => {
                wallStart = performance.now()
                machineStart = sampleMachineCpu().busyMs
                const sample = sampleProcess(subject.server.pid)
                cpuStart = sample.cpuMs
                systemStart = sample.systemCpuMs
                if (PERF_DIR) perf = perfRecord(subject.server.pid, path.join(PERF_DIR, `${c.name}-${connections}-${subject.label}-${round}.data`), DURATION_MS)
              },
              onMeasureEnd: () => {
                const sample = sampleProcess(subject.server.pid)
                const cpu = sample.cpuMs - cpuStart
                const wall = performance.now() - wallStart
                const t = tallies[i]
                t.cpuMs += cpu
                t.systemMs += sample.systemCpuMs - systemStart
                t.wallMs += wall
                t.otherMs += Math.max(0, sampleMachineCpu().busyMs - machineStart - cpu)
              },
            })
            await perf
            const t = tallies[i]
            const statuses = Object.keys(load.statuses)
            if (load.errorCount > 0 || statuses.length !== 1 || !/^[23]\d\d$/.test(statuses[0])) throw new Error(`${c.name} on ${subject.label}: ${JSON.stringify(load.statuses)} ${load.errors.join('; ')}`)
            t.requests += load.requests
            t.durationMs += load.durationMs
            // The other CPU counted the generator in; it is taken out once the run is over.
            t.otherMs -= load.generatorCpuMs
            roundRps.push(load.requestsPerSecond)
          }
          const bare = roundRps.at(-1)!
          perRound.push(subjects.slice(0, -1).map((s, i) => `${s.label} ${fixed(roundRps[i] / bare, 2)}`).join(' / '))
        }
        const bare = tallies.at(-1)!
        const bareCpu = (bare.cpuMs * 1000) / bare.requests
        const bareRps = (bare.requests * 1000) / bare.durationMs
        for (const [i, subject] of subjects.entries()) {
          const t = tallies[i]
          const cpu = (t.cpuMs * 1000) / t.requests
          const rps = (t.requests * 1000) / t.durationMs
          rows.push([
            `${c.name}, ${connections} conn: ${subject.label}`,
            fixed(cpu, 1),
            `${fixed(((t.cpuMs - t.systemMs) * 1000) / t.requests, 1)} / ${fixed((t.systemMs * 1000) / t.requests, 1)}`,
            subject.ours ? `${fixed(cpu / bareCpu, 2)}x` : '',
            thousands(rps),
            subject.ours ? `${fixed(rps / bareRps, 2)}x` : '',
            subject.ours ? perRound.map((r) => r.split(' / ')[subjects.filter((s) => s.ours).indexOf(subject)].split(' ')[1]).join(' ') : '',
            fixed((t.cpuMs / t.wallMs) * 100, 0),
            fixed((t.otherMs / t.wallMs) * 100, 0),
          ])
        }
        console.log(rows.slice(-subjects.length).map((r) => r.join('  ')).join('\n'))
      }
    }
    console.log('')
    console.log(
      formatTable(['case: server', 'server CPU µs/resp', 'user / system', 'CPU vs bare', 'req/s', 'req/s vs bare', 'req/s vs bare per round', 'server CPU %', 'other CPU %'], rows),
    )
    console.log(`load average at the end ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`)
  } finally {
    for (const s of subjects.reverse()) await s.server.stop()
  }
}

await main()

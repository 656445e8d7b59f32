// The flag search (GET /api/admin/search/features, issue 24) over BENCH_FLAGS (50,000) flags in 10
// projects: p50/p99 of a few typical searches, first in process (the read model and the rows of the
// page, what the route does besides HTTP), then over HTTP against our server from dist/ holding the same
// flags. Also: building the index on the first search, and keeping it up when one flag changes.
// Run: node scripts/build.mjs && node dist/bench/search.js   (BENCH_HTTP=0 skips the HTTP part)
//
// The flags are seeded as records of the log, the way the server writes them (project-created from the
// domain's own decide, feature-created with tags, strategy-add and environment-enabled for some, stale
// and archived for others), applied in process with recovery's applyRecord and appended to a stopped
// server's log with the store's EventLog for the HTTP part (the server replays them at its next start).
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { applyRecord, type World } from '../src/actors/recovery.js'
import type { EventDraft, EventRecord } from '../src/domain/events.js'
import { featureData } from '../src/domain/features.js'
import { emptyInstance, type Environment } from '../src/domain/instance-state.js'
import { decideCreateProject } from '../src/domain/projects.js'
import { featureSearchOf } from '../src/domain/search.js'
import { FeatureSearchIndex, featureSearchView, type FeatureSearchContext } from '../src/read/feature-search.js'
import { featureSearchQuerySchema, queryObject } from '../src/schemas/search.js'
import { EventLog } from '../src/store/log.js'
import * as v from 'valibot'
import { startChildServer, tempDir } from './lib/child-server.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo } from './lib/machine-info.js'
import { mulberry32 } from './lib/seeded-random.js'
import { positiveInteger } from './lib/settings.js'

const FLAGS = positiveInteger('BENCH_FLAGS', 50_000)
const RUNS = positiveInteger('BENCH_RUNS', 200)
const HTTP_RUNS = positiveInteger('BENCH_HTTP_RUNS', 100)
const withHttp = process.env.BENCH_HTTP !== '0'
const projectCount = 10

const searches: [string, string][] = [
  ['text query, broad (name or description contains "checkout")', 'query=checkout'],
  ['text query, one flag', 'query=flag-04242'],
  ['project + tag filter', 'project=IS:project-3&tag=INCLUDE_ANY_OF:team:payments'],
  ['type + state filter, newest first', 'type=IS:experiment&state=IS:stale&sortOrder=desc'],
  ['sorted by name, page at offset 40,000', 'sortBy=name&offset=40000&limit=50'],
  ['creation order, page at offset 40,000', 'offset=40000&limit=50'],
  ['sorted by type desc, page at offset 40,000', 'sortBy=type&sortOrder=desc&offset=40000&limit=50'],
  ['archived flags', 'archived=IS:true'],
]

const words = ['checkout', 'search', 'billing', 'onboarding', 'profile', 'pricing', 'cart', 'login']
const types = ['release', 'release', 'release', 'experiment', 'operational', 'kill-switch', 'permission']
const teams = ['payments', 'growth', 'core', 'search', 'infra']

const environments = new Map<string, Environment>(
  (['development', 'production'] as const).map((name, i) => [name, { name, type: name, enabled: true, sortOrder: i + 2, protected: false, createdAt: '2024-01-01T00:00:00.000Z' }]),
)

const records = (): EventDraft[] => {
  const random = mulberry32(24)
  // Created in the hours before the run: older flags would be marked potentially stale by the server's
  // job (tens of thousands of writes while it is measured).
  const start = Math.floor(Date.now() / 1000) * 1000 - FLAGS * 1000 - 3_600_000
  const meta = (at: number) => ({ now: new Date(at).toISOString(), actor: { name: 'bench', userId: -42 } })
  const base = { createdBy: 'bench', createdByUserId: -42 }
  const drafts: EventDraft[] = []
  for (let p = 1; p < projectCount; p++) {
    const created = decideCreateProject(undefined, { type: 'project.create', id: `project-${p}`, input: { name: `Project ${p}` }, world: { projectCount: p, environments }, meta: meta(start) })
    if (!created.ok) throw new Error(created.error.message)
    drafts.push(...created.value)
  }
  drafts.push({ ...base, type: 'tag-type-created', createdAt: new Date(start).toISOString(), data: { name: 'team', description: '', icon: null } })
  for (let i = 0; i < FLAGS; i++) {
    const at = new Date(start + 60_000 + i * 1000).toISOString()
    const project = i % projectCount === 0 ? 'default' : `project-${i % projectCount}`
    const word = words[Math.floor(random() * words.length)]
    const name = `flag-${String(i).padStart(5, '0')}-${word}`
    const description = random() < 0.3 ? `${words[Math.floor(random() * words.length)]} change for ${teams[i % teams.length]}` : null
    const tags = [{ type: 'team', value: teams[Math.floor(random() * teams.length)] }, ...(random() < 0.5 ? [{ type: 'simple', value: `t${Math.floor(random() * 50)}` }] : [])]
    const type = types[Math.floor(random() * types.length)]
    const flag = { ...base, project, featureName: name, createdAt: at }
    drafts.push({ ...flag, type: 'feature-created', tags, data: { name, description, type, project, stale: false, createdAt: at, impressionData: false, archived: false } })
    if (random() < 0.2) {
      const strategy = { id: `s-${i}`, name: 'flexibleRollout', title: null, disabled: false, sortOrder: 0, constraints: [], parameters: { rollout: '100', stickiness: 'default', groupId: name }, variants: [], segments: [] }
      drafts.push({ ...flag, type: 'feature-strategy-add', environment: 'development', data: strategy })
      drafts.push({ ...flag, type: 'feature-environment-enabled', environment: 'development' })
    }
    if (random() < 0.1) drafts.push({ ...flag, type: 'feature-stale-on' })
    if (random() < 0.05) drafts.push({ ...flag, type: 'feature-archived' })
  }
  return drafts
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
const summary = (ms: number[]) => {
  const sorted = [...ms].sort((a, b) => a - b)
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted[sorted.length - 1] }
}

const info = machineInfo()
console.log(`flag search: ${thousands(FLAGS)} flags in ${projectCount} projects; ${describeMachine(info)}`)

// In process

const drafts = records()
// The server's first start makes the default project; in process it is made here.
const defaultProject = decideCreateProject(undefined, { type: 'project.create', id: 'default', input: { name: 'Default' }, world: { projectCount: 0, environments }, meta: { now: new Date().toISOString(), actor: { name: 'bench', userId: -42 } } })
if (!defaultProject.ok) throw new Error(defaultProject.error.message)
const world: World = { instance: { ...emptyInstance(), environments }, projects: new Map(), changeRequests: new Map() }
;[...defaultProject.value, ...drafts].forEach((draft, i) => applyRecord(world, { ...draft, id: i + 1 } as EventRecord))
const context: FeatureSearchContext = {
  viewer: 'token:bench',
  environments,
  lifecycle: (feature) => feature.lifecycle[feature.lifecycle.length - 1],
  lastSeen: () => null,
  counts: () => ({ yes: 0, no: 0 }),
  segmentName: () => undefined,
  segmentIdsNamed: () => [],
  changeRequestIds: () => [],
  user: () => undefined,
}
const index = new FeatureSearchIndex(() => world.projects)
const answer = (query: string) => {
  const { hits, total } = index.search(featureSearchOf(v.parse(featureSearchQuerySchema, queryObject(new URLSearchParams(query), ['status']))), context)
  return { features: hits.map((hit) => featureSearchView(hit, index.dependencyType(hit.feature), context)), total }
}

const buildStarted = performance.now()
const first = answer('limit=1')
const buildMs = performance.now() - buildStarted
console.log(`index built on the first search in ${fixed(buildMs, 0)} ms (${thousands(first.total)} active flags)`)

const rows: string[][] = []
for (const [what, query] of searches) {
  for (let i = 0; i < 10; i++) answer(query)
  const times: number[] = []
  const cpu: number[] = []
  let total = 0
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now()
    const cpuStarted = process.cpuUsage()
    total = answer(query).total
    const used = process.cpuUsage(cpuStarted)
    times.push(performance.now() - started)
    cpu.push((used.user + used.system) / 1000)
  }
  const s = summary(times)
  const c = summary(cpu)
  rows.push([what, query, thousands(total), fixed(s.p50, 2), fixed(s.p99, 2), fixed(c.p50, 2), fixed(c.p99, 2)])
}
// CPU time beside wall time: on a machine shared with other work the wall time also counts the waits.
console.log(`\nin process: ${RUNS} runs each (parse, search, rows of the page); load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores\n`)
console.log(formatTable(['search', 'query', 'total', 'p50 ms', 'p99 ms', 'CPU p50 ms', 'CPU p99 ms'], rows))

// One flag changes: its project state is replaced and one committed record names it.
const updates: number[] = []
const names = [...world.projects.get('project-3')!.features.keys()]
for (let i = 0; i < 1000; i++) {
  const name = names[i % names.length]
  const project = world.projects.get('project-3')!
  const features = new Map(project.features)
  const feature = features.get(name)!
  const changed = { ...feature, description: `changed ${i}` }
  features.set(name, changed)
  world.projects.set('project-3', { ...project, features })
  const started = performance.now()
  const data = featureData(changed)
  const preData = featureData(feature)
  index.apply([{ id: drafts.length + i + 1, type: 'feature-metadata-updated', createdAt: new Date().toISOString(), createdBy: 'bench', createdByUserId: -42, project: 'project-3', featureName: name, data, preData }])
  updates.push(performance.now() - started)
}
const u = summary(updates)
console.log(`\none flag changed, index kept up: p50 ${fixed(u.p50 * 1000, 1)} µs, p99 ${fixed(u.p99 * 1000, 1)} µs (1,000 changes)`)

// Over HTTP

if (withHttp) {
  const main = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js')
  const adminToken = `*:*.${randomBytes(16).toString('hex')}`
  const root = tempDir('search-bench-')
  const dataDir = path.join(root, 'data')
  const start = () =>
    startChildServer({ name: 'flag server', script: main, readyTimeoutMs: 600_000, env: { HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: adminToken } })
  // A first start makes the environments, the default project and the token; the flags go into its log.
  await (await start()).stop()
  const log = EventLog.open(dataDir)
  for (let at = 0; at < drafts.length; at += 20_000) await log.append<EventRecord>(drafts.slice(at, at + 20_000)).committed
  await log.close()
  const replayStarted = performance.now()
  const server = await start()
  console.log(`\nover HTTP: server started on ${thousands(drafts.length)} more records in ${fixed((performance.now() - replayStarted) / 1000, 1)} s; ${HTTP_RUNS} sequential requests each; load average ${os.loadavg()[0].toFixed(1)}\n`)
  try {
    const get = async (query: string) => {
      const res = await fetch(`${server.url}/api/admin/search/features?${query}`, { headers: { authorization: adminToken } })
      const body = (await res.json()) as { total: number }
      if (res.status !== 200) throw new Error(`${query}: ${res.status} ${JSON.stringify(body)}`)
      return body
    }
    const httpRows: string[][] = []
    const firstStarted = performance.now()
    await get('limit=1')
    console.log(`first search after the start (the server builds the index once it serves): ${fixed(performance.now() - firstStarted, 0)} ms`)
    for (const [what, query] of searches) {
      for (let i = 0; i < 5; i++) await get(query)
      const times: number[] = []
      let total = 0
      for (let i = 0; i < HTTP_RUNS; i++) {
        const started = performance.now()
        total = (await get(query)).total
        times.push(performance.now() - started)
      }
      const s = summary(times)
      httpRows.push([what, thousands(total), fixed(s.p50, 2), fixed(s.p99, 2)])
    }
    console.log(formatTable(['search', 'total', 'p50 ms', 'p99 ms'], httpRows))
  } finally {
    await server.stop()
    rmSync(root, { recursive: true, force: true })
  }
}

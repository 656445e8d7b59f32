import { open } from 'lmdb'
import t, { type Test } from 'tap'
import { EventLog } from '../../src/store/log.js'
import {
  addStrategy,
  api,
  clientToken,
  createFeature,
  createProject,
  enableFeature,
  expectOk,
  getClientFeatures,
  listEvents,
  listFeatures,
  listProjects,
  type ServerRef,
} from '../helpers/admin-api.js'
import { expectStatus } from '../helpers/expect.js'
import { makeDataDir, randomAdminToken, startTestServer, type TestServer } from '../helpers/server.js'

const P = 'crash'
const workers = 6
const dataDir = makeDataDir(t)
const adminToken = randomAdminToken()
// Small, so that snapshots are taken (and maybe interrupted) while the writes stream in.
const childEnv = { SNAPSHOT_EVERY: '40' }
// Started on the subtest, so a failing subtest cannot leave its server running into the next one.
const startChild = (t: Test) => startTestServer(t, { mode: 'child', dataDir, adminToken, env: childEnv })
const replayedOf = (server: TestServer) => Number(/(\d+) events replayed/.exec(server.output())?.[1] ?? NaN)

// Everything an admin or an SDK can observe of the stored state, for before/after comparisons.
const observe = async (server: ServerRef, sdkToken: string) => {
  const projects = (await listProjects(server)).body.projects
  const features = (await listFeatures(server, P)).body.features.sort((a: any, b: any) => a.name.localeCompare(b.name))
  const projectEvents = (await listEvents(server, P)).body
  const events = (await listEvents(server)).body
  const client = (await getClientFeatures(server, sdkToken)).body
  // seenAt is when a token was last used (these very requests), not stored state: left out.
  const tokens = (await api(server, 'GET', '/api/admin/api-tokens')).body.tokens
    .map(({ seenAt: _seenAt, ...token }: { seenAt: string | null; secret: string }) => token)
    .sort((a: { secret: string }, b: { secret: string }) => a.secret.localeCompare(b.secret))
  return { projects, features, projectEvents, events, client: { ...client, meta: undefined }, tokens }
}

// Every id the log holds, read from the data dir of a stopped server.
const logIds = async (dir: string): Promise<number[]> => {
  const log = EventLog.open(dir)
  const ids = Array.from(log.from(1), (record) => record.id)
  await log.close()
  return ids
}

const consecutive = (ids: number[]) => ids.every((id, i) => id === i + 1)

let sdkToken = ''
let expected: Awaited<ReturnType<typeof observe>> | undefined
let acknowledgedTotal = 0

t.test('every acknowledged write survives a SIGKILL in the middle of a stream of writes', async (t) => {
  const server = await startChild(t)
  expectOk(await createProject(server, { id: P, name: 'Crash' }), 'project')
  sdkToken = await clientToken(server, [P])
  const created = new Set<string>()
  const withStrategy = new Set<string>()
  const enabled = new Set<string>()
  let stop = false
  let failures = 0
  // Each worker creates flags one after another; with several workers, several writes are always in flight.
  const worker = async (w: number) => {
    for (let n = 0; !stop; n++) {
      const name = `w${w}-${n}`
      try {
        if ((await createFeature(server, P, name)).status !== 201) return
        created.add(name)
        if (n % 2 === 0) {
          if ((await addStrategy(server, P, name, 'development', { name: 'flexibleRollout', parameters: { rollout: String(n % 100) } })).status !== 200) return
          withStrategy.add(name)
          if ((await enableFeature(server, P, name, 'development')).status !== 200) return
          enabled.add(name)
        }
      } catch {
        failures++
        return
      }
    }
  }
  const running = Array.from({ length: workers }, (_, w) => worker(w))
  // Let the stream run until a good number of writes are acknowledged, then pull the plug.
  while (created.size < 150) await new Promise((resolve) => setTimeout(resolve, 10))
  await server.kill()
  stop = true
  await Promise.all(running)
  t.ok(failures > 0, `requests were in flight when the process died (${failures} failed)`)
  t.ok(created.size >= 150, `${created.size} flags, ${withStrategy.size} strategies and ${enabled.size} switch-ons were acknowledged`)

  const restarted = await startChild(t)
  const features = new Map<string, any>((await listFeatures(restarted, P)).body.features.map((f: any) => [f.name, f]))
  const missing = [...created].filter((name) => !features.has(name))
  t.same(missing, [], 'every acknowledged flag is there')
  const env = (name: string) => features.get(name)?.environments.find((e: any) => e.name === 'development')
  t.same([...withStrategy].filter((name) => env(name)?.strategies.length !== 1), [], 'every acknowledged strategy is there, once')
  t.same([...enabled].filter((name) => env(name)?.enabled !== true), [], 'every acknowledged switch-on is there')

  // The log and the state agree: one feature-created per flag, one strategy-add per strategy.
  const projectEvents = (await listEvents(restarted, P)).body.events
  const count = (type: string) => projectEvents.filter((e: any) => e.type === type).length
  const strategies = [...features.values()].reduce((sum, f) => sum + f.environments.reduce((s: number, e: any) => s + e.strategies.length, 0), 0)
  t.equal(count('feature-created'), features.size, 'one feature-created event per stored flag')
  t.equal(count('feature-strategy-add'), strategies, 'one feature-strategy-add event per stored strategy')
  t.equal(count('feature-environment-enabled'), [...features.values()].filter((f) => f.environments.some((e: any) => e.enabled)).length)
  const projectIds = projectEvents.map((e: any) => e.id)
  t.ok(projectIds.every((id: number, i: number) => i === 0 || id < projectIds[i - 1]), 'project event ids are unique, newest first')

  const global = (await listEvents(restarted)).body
  const ids = global.events.map((e: any) => e.id)
  t.equal(ids[0], global.totalEvents, 'the newest id is the number of events')
  t.ok(ids.every((id: number, i: number) => i === 0 || id === ids[i - 1] - 1), 'the newest 100 ids are consecutive')

  // Writes go on where the log left off.
  expectOk(await createFeature(restarted, P, 'after-crash'), 'a write after the restart')
  const after = (await listEvents(restarted, P)).body.events[0]
  t.match(after, { id: global.totalEvents + 1, type: 'feature-created', featureName: 'after-crash' }, 'the next id follows the last one')
  acknowledgedTotal = global.totalEvents + 1

  t.equal(await restarted.stop(), 0, 'a clean stop')
  const all = await logIds(dataDir)
  t.equal(all.length, acknowledgedTotal, 'the log holds every event')
  t.ok(consecutive(all), 'log ids run 1..N with no gaps or duplicates')
})

t.test('a restart after a clean SIGTERM comes back from the snapshot with the same state', async (t) => {
  const first = await startChild(t)
  t.equal(replayedOf(first), 0, 'the shutdown snapshot covered every event')
  const before = await observe(first, sdkToken)
  t.ok(before.features.length > 150)
  t.equal(await first.stop(), 0, 'SIGTERM exits 0')
  t.match(first.output(), /SIGTERM: finishing requests in flight, writing snapshots and stopping/)
  const second = await startChild(t)
  t.equal(replayedOf(second), 0, 'nothing replayed: the snapshot is current')
  t.same(await observe(second, sdkToken), before, 'the same state')
  expectStatus(t, await getClientFeatures(second, sdkToken), 200, 'the client token still works')
  expected = before
  await second.stop()
})

type Tamper = (snapshots: ReturnType<ReturnType<typeof open>['openDB']>) => void

const tamperWithSnapshots = async (t: Test, dir: string, tamper: Tamper) => {
  const root = open({ path: dir, compression: false, noSubdir: false, maxDbs: 64 })
  const snapshots = root.openDB({ name: 'snapshots', encoding: 'binary' })
  const keys = Array.from(snapshots.getKeys())
  t.ok(keys.length > 0, `there were snapshots to tamper with (${keys.length} entries)`)
  await snapshots.transaction(() => tamper(snapshots))
  await root.close()
}

for (const [what, tamper] of [
  ['deleting the snapshots', (db) => {
    for (const key of Array.from(db.getKeys())) db.remove(key)
  }],
  ['corrupting every snapshot entry', (db) => {
    for (const key of Array.from(db.getKeys())) db.put(key, Buffer.from([0xc1, 0xff, 0x00, 0x13, 0x37]))
  }],
  ['truncating every snapshot entry', (db) => {
    for (const key of Array.from(db.getKeys())) {
      const value = db.get(key) as Buffer
      db.put(key, value.subarray(0, Math.floor(value.length / 2)))
    }
  }],
] as [string, Tamper][]) {
  t.test(`${what} makes the server rebuild from the log, with the same state`, async (t) => {
    // The state the last clean stop left behind (each of these tests ends with one).
    const before = expected!
    await tamperWithSnapshots(t, dataDir, tamper)
    const rebuilt = await startChild(t)
    t.equal(replayedOf(rebuilt), before.events.totalEvents, 'the whole log was replayed')
    t.same(await observe(rebuilt, sdkToken), before, 'the same state')
    expectOk(await createFeature(rebuilt, P, `after-${what.split(' ')[0]}`), 'and it takes writes')
    expected = await observe(rebuilt, sdkToken)
    t.equal(await rebuilt.stop(), 0, 'a clean stop')
  })
}

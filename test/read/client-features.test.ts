import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import t from 'tap'
import type { EventRecord } from '../../src/domain/events.js'
import { PersistentMap, withEntry, withoutEntry } from '../../src/domain/immutable.js'
import type { Segment } from '../../src/domain/instance-state.js'
import type { Feature, ProjectState, Strategy } from '../../src/domain/project-state.js'
import { ClientFeatures, clientFeature, type ClientPayload, type ClientQuery, type KeptAnswers, type KeptReader } from '../../src/read/client-features.js'
import { ClientRevisions } from '../../src/read/client-revisions.js'
import { offThreadDeflatesInFlight } from '../../src/read/joined-deflate.js'

const strategy = (id: string, rollout: number, segments: number[] = []): Strategy => ({
  id,
  name: 'flexibleRollout',
  title: null,
  disabled: false,
  sortOrder: 0,
  constraints: [{ contextName: 'country', operator: 'IN', values: ['no', 'sé'] } as Strategy['constraints'][number]],
  parameters: { rollout: String(rollout), stickiness: 'default', groupId: id },
  variants: [],
  segments,
})

const feature = (name: string, rollout: number, project = 'web', segments: number[] = []): Feature => ({
  name,
  project,
  type: 'release',
  description: `ø ${name}`,
  impressionData: false,
  stale: false,
  archived: false,
  archivedAt: null,
  createdAt: '2024-01-01T00:00:00.000Z',
  environments: new Map([
    ['development', { enabled: true, strategies: [strategy(`${name}-s`, rollout, segments)], variants: [] }],
    ['production', { enabled: false, strategies: [], variants: [] }],
  ]),
  dependencies: [],
  tags: [],
  lifecycle: [],
})

// A world of projects whose flags a test changes, and the revisions a commit would move.
class World {
  projects = new Map<string, ProjectState>()
  segments = new Map<number, Segment>([[1, { id: 1, name: 'beta', constraints: [{ contextName: 'plan', operator: 'IN', values: ['beta'] }] } as unknown as Segment]])
  revisions = new ClientRevisions()
  private id = 0
  constructor(features: Feature[]) {
    for (const f of features) this.put(f, false)
  }
  put(f: Feature, record = true) {
    const project = this.projects.get(f.project) ?? ({ features: PersistentMap.from([]) } as unknown as ProjectState)
    this.projects.set(f.project, { ...project, features: withEntry(project.features, f.name, f) })
    if (record) this.revisions.record([{ id: ++this.id, type: 'feature-updated', project: f.project, featureName: f.name } as unknown as EventRecord], () => true)
  }
  remove(f: Feature) {
    const project = this.projects.get(f.project)!
    this.projects.set(f.project, { ...project, features: withoutEntry(project.features, f.name) })
    this.revisions.record([{ id: ++this.id, type: 'feature-deleted', project: f.project, featureName: f.name } as unknown as EventRecord], () => true)
  }
  changeSegments() {
    this.segments = new Map(this.segments)
    this.revisions.record([{ id: ++this.id, type: 'segment-updated' } as unknown as EventRecord], () => true)
  }
  model(plainKeptMs = 60_000) {
    return new ClientFeatures({ projects: () => this.projects, segments: () => this.segments, revisions: this.revisions }, { plainKeptMs })
  }
}

const query = (over: Partial<ClientQuery> = {}): ClientQuery => ({ environment: 'development', projects: '*', inlineSegmentConstraints: false, ...over })

// A payload's plain body, joined.
const text = (payload: ClientPayload) => payload.plain().toString()

// What a build from nothing answers: the reference every incremental build must equal.
const fresh = (world: World, q: ClientQuery) => text(world.model().payload(q))

// Its gzip answer once its runs are deflated (off the event loop for a large body).
const gzipped = async (payload: ClientPayload): Promise<Buffer> => {
  for (let gzip = payload.gzip(); ; gzip = payload.gzipIfReady()) {
    if (gzip) return gzip
    await new Promise((resolve) => setImmediate(resolve))
  }
}

// Flags with descriptions of `length` characters: bodies large enough to be deflated off the event loop.
const wordy = (count: number, length: number) => Array.from({ length: count }, (_, i) => ({ ...feature(`flag-${String(i).padStart(5, '0')}`, i % 101), description: 'd'.repeat(length) }))

// Kept answers read back as a start reads a kept file, counting the sections read.
const reader = (kept: KeptAnswers) => {
  const read: number[] = []
  let closed = false
  const source: KeptReader = {
    header: kept.header,
    section: (i) => (read.push(i), kept.sections[i]),
    close: () => void (closed = true),
  }
  return { source, read, closed: () => closed }
}

const names = Array.from({ length: 300 }, (_, i) => `flag-${String(i).padStart(3, '0')}`)

t.test('a rebuild after a change copies the flags that did not change and equals a build from nothing', async (t) => {
  const world = new World(names.map((name, i) => feature(name, i % 101, i % 3 === 0 ? 'mobile' : 'web', i % 7 === 0 ? [1] : [])))
  const model = world.model()
  for (const q of [query(), query({ projects: ['web'] }), query({ inlineSegmentConstraints: true }), query({ namePrefix: 'flag-1' })]) {
    const first = text(model.payload(q))
    t.equal(first, fresh(world, q), 'the first build')
    t.same(JSON.parse(first).features.map((f: { name: string }) => f.name), [...JSON.parse(first).features.map((f: { name: string }) => f.name)].sort())
  }
  const steps: [string, () => void][] = [
    ['one flag changed', () => world.put(feature('flag-150', 7))],
    ['the first flag changed', () => world.put(feature('flag-000', 9, 'mobile', [1]))],
    ['the last flag changed', () => world.put(feature('flag-299', 9))],
    ['a flag added in the middle', () => world.put(feature('flag-150a', 3))],
    ['a flag removed', () => world.remove(feature('flag-151', 0, 'web'))],
    ['two flags next to each other changed', () => (world.put(feature('flag-010', 1)), world.put(feature('flag-011', 2)))],
    ['the segments changed', () => world.changeSegments()],
  ]
  t.test('one flag changed: one flag serialised for the scope, none for a second scope of that environment', async (t) => {
    const counted = world.model()
    counted.payload(query())
    counted.payload(query({ projects: ['web'] }))
    const before = counted.counters.flagsSerialised
    t.equal(before, 300, 'the second scope copied every flag from the first')
    world.put(feature('flag-200', 5))
    counted.payload(query())
    t.equal(counted.counters.flagsSerialised - before, 1)
    counted.payload(query({ projects: ['web'] }))
    t.equal(counted.counters.flagsSerialised - before, 2, 'each scope holds its own body')
  })
  for (const [what, change] of steps) {
    change()
    for (const q of [query(), query({ projects: ['web'] }), query({ inlineSegmentConstraints: true }), query({ namePrefix: 'flag-1' })]) {
      t.equal(text(model.payload(q)), fresh(world, q), `${what}: ${JSON.stringify(q)}`)
      t.same(JSON.parse(model.parts(q).features.toString()), JSON.parse(fresh(world, q)).features, `${what}: the parts of ${JSON.stringify(q)}`)
      t.same(gunzipSync(await gzipped(model.payload(q))).toString(), fresh(world, q), `${what}: its gzip answer`)
    }
  }
})

t.test('a single flag as the delta API serves it is the one in the body', async (t) => {
  const world = new World(names.map((name, i) => feature(name, i)))
  const model = world.model()
  const q = query()
  model.payload(q)
  const f = world.projects.get('web')!.features.get('flag-042')!
  t.same(JSON.parse(model.featureJson(f, q)!), clientFeature(f, f.environments.get('development'), world.segments, false))
  const changed = feature('flag-042', 99)
  world.put(changed)
  t.same(JSON.parse(model.featureJson(changed, q)!).strategies[0].parameters.rollout, '99', 'a state object the body does not hold yet is serialised')
  t.equal(model.featureJson(f, query({ projects: ['mobile'] })), undefined, 'outside the scope')
})

t.test('a compressed copy is made only in the encoding asked for, once', async (t) => {
  // A body under 512 KB, whose runs are deflated at once.
  const world = new World(names.slice(0, 50).map((name, i) => feature(name, i)))
  const payload = world.model().payload(query())
  t.equal(payload.gzipIfReady(), undefined, 'no copy before one is asked for')
  t.equal(payload.brotliIfReady(), undefined)
  const gzip = payload.gzip()
  t.same(gunzipSync(gzip!).toString(), text(payload), 'the gzip copy')
  t.equal(payload.brotliIfReady(), undefined, 'no brotli copy made with it')
  t.equal(payload.gzip(), gzip, 'the same copy the next time')
  t.same(brotliDecompressSync(payload.brotli()!).toString(), text(payload), 'the brotli copy when asked for')

  const large = new World(wordy(300, 2000)).model().payload(query())
  t.ok(large.plainLength > 512 * 1024, 'a body compressed off the event loop')
  t.equal(large.brotli(), undefined, 'not ready at once')
  t.equal(large.gzipIfReady(), undefined, 'and no gzip copy begun')
  t.equal(large.gzip(), undefined, 'nor ready at once when asked for')
  t.same(gunzipSync(await gzipped(large)).toString(), text(large), 'then made')
})

t.test('a change deflates the run of the flag that changed again, and no other', async (t) => {
  const world = new World(wordy(3000, 1500))
  const model = world.model()
  await gzipped(model.payload(query()))
  const runs = model.counters.runsDeflated
  t.ok(runs > 10, `the body is in runs (${runs})`)
  world.put({ ...feature('flag-01500', 7), description: 'changed' })
  const after = model.payload(query()).gzip()
  t.ok(after, 'the gzip answer ready at once after a change')
  t.equal(model.counters.runsDeflated - runs, 1, 'one run deflated')
  t.same(gunzipSync(after!).toString(), fresh(world, query()))
})

// zlib hands a run's stream back in (or copied out of) its own output buffers of 16 KiB, from glibc's heap;
// held there until the gzip body is joined, they left that heap full of holes after every rebuild.
t.test('a deflated run waits for the gzip body in a slab of 1 MiB, not in the buffer zlib wrote it to', async (t) => {
  const world = new World(wordy(600, 2000))
  const payload = world.model(0).payload(query())
  t.equal(payload.gzip(), undefined, 'a body deflated off the event loop')
  while (offThreadDeflatesInFlight() > 0) await new Promise((resolve) => setImmediate(resolve))
  const runs = (payload as unknown as { runs: readonly { deflated: Buffer | undefined }[] }).runs
  t.ok(runs.length > 2, `in runs (${runs.length})`)
  t.same(new Set(runs.map((run) => run.deflated?.buffer.byteLength)), new Set([1024 * 1024]), "every run's stream a view of a slab")
  t.equal(gunzipSync(payload.gzipIfReady()!).toString(), text(payload), 'and the gzip body joined from them is the plain one')
})

t.test("a large body's plain JSON is let go once deflated and not asked for, and comes back the same", async (t) => {
  const world = new World(wordy(2500, 2000))
  const model = world.model(0)
  const q = query()
  const payload = model.payload(q)
  t.ok(payload.plainLength > 4 << 20, 'a body of many runs')
  const plainBefore = text(payload)
  await gzipped(payload)
  t.ok(payload.gzipIfReady(), 'the gzip answer ready')
  t.equal(model.counters.runsInflated, 0, 'nothing inflated yet')
  t.equal(text(payload), plainBefore, 'the plain body inflated again')
  t.equal(model.counters.runsInflated, model.counters.runsDeflated, 'every run inflated: their JSON had gone')
  const serialised = model.counters.flagsSerialised
  world.put({ ...feature('flag-01200', 9), description: 'changed' })
  t.equal(text(model.payload(q)), fresh(world, q), 'a change after it: built from the deflated runs')
  t.equal(model.counters.flagsSerialised - serialised, 1, 'that flag alone serialised')
  t.equal(model.featureJson(world.projects.get('web')!.features.get('flag-00003')!, q), JSON.stringify(JSON.parse(fresh(world, q)).features[3]), 'one flag as the delta API serves it')
})

// A scope of `count` wordy flags whose plain body was asked for, then its gzip answer, and whose plain
// body has not been asked for since, for longer than plainKeptMs (200 ms).
const plainAskedLongAgo = async (count: number) => {
  const world = new World(wordy(count, 2000))
  const model = world.model(200)
  const q = query()
  text(model.payload(q))
  await gzipped(model.payload(q))
  await new Promise((resolve) => setTimeout(resolve, 250))
  return { world, model, q }
}

t.test('an answer after a change lets the plain body go by when its scope last asked for it', async (t) => {
  const { world, model, q } = await plainAskedLongAgo(300)
  world.put({ ...feature('flag-00150', 3), description: 'changed' })
  // A client that asked for gzip, sent the plain body while runs are deflated: no ask for the plain body.
  t.equal(model.payload(q).plain(false).toString(), fresh(world, q), 'the plain body sent to a gzip client')
  t.ok(await gzipped(model.payload(q)), 'the gzip answer after the change')
  t.equal(text(model.payload(q)), fresh(world, q), 'the plain body when asked for')
  t.ok(model.counters.runsInflated > 1, `inflated again (${model.counters.runsInflated} runs): the runs shared with the answer before held none of its body`)
})

t.test('a plain body no SDK asked for in plainKeptMs is let go from the timer, though no gzip poll comes', async (t) => {
  const { model, q } = await plainAskedLongAgo(3000)
  const runs = model.counters.runsDeflated
  t.ok(runs > 10, `a body of ${runs} runs, every one deflated`)
  t.equal(model.letDuePlainBodiesGo(), runs, 'every run lets its JSON go')
  t.equal(model.letDuePlainBodiesGo(), 0, 'and nothing is left to go')
  const inflated = model.counters.runsInflated
  text(model.payload(q))
  t.equal(model.counters.runsInflated - inflated, runs, 'asked for again, each run is inflated: it held no JSON')
  t.equal(model.letDuePlainBodiesGo(), 0, 'a body just asked for stays')
})

t.test("a plain body is let go from the timer once another scope's gzip answer took its runs' JSON", async (t) => {
  const { world, model, q } = await plainAskedLongAgo(3000)
  // Every flag is in project web: this scope's answer is built from the same runs, and is another answer.
  const web = query({ projects: ['web'] })
  t.not(model.payload(web), model.payload(q), 'another answer')
  t.ok(await gzipped(model.payload(web)), "its gzip answer, which lets the shared runs' JSON go")
  model.letDuePlainBodiesGo()
  const inflated = model.counters.runsInflated
  const runs = model.counters.runsDeflated
  t.equal(text(model.payload(q)), fresh(world, q), 'the first scope asked for its plain body again')
  t.equal(model.counters.runsInflated - inflated, runs, 'joined again from every run inflated: its joined body had gone')
})

t.test('a plain body is not let go before it is due, nor the JSON of a run until it is deflated', async (t) => {
  const world = new World(wordy(3000, 2000))
  const model = world.model(200)
  const q = query()
  const body = model.payload(q).plain()
  t.equal(model.letDuePlainBodiesGo(), 0, 'asked for just now')
  t.equal(model.counters.runsDeflated, 0, 'and nothing deflated')
  await new Promise((resolve) => setTimeout(resolve, 250))
  t.equal(model.letDuePlainBodiesGo(), 0, 'due, but no run is deflated: their JSON is the only copy')
  const runs = model.counters.runsDeflated
  t.equal(runs, (model.payload(q) as unknown as { runs: readonly unknown[] }).runs.length, `so every run is deflated (${runs})`)
  t.equal(model.payload(q).plain(false), body, 'and the joined body is kept meanwhile: the same buffer, not a copy')
  t.equal(body.toString(), fresh(world, q), 'the same body')
  t.equal(model.counters.runsInflated, 0, 'with nothing inflated')
  // The runs are deflated on the thread pool: a later call lets them go.
  let gone = 0
  while ((gone = model.letDuePlainBodiesGo()) === 0) await new Promise((resolve) => setImmediate(resolve))
  t.equal(gone, runs, 'once deflated, every run lets its JSON go')
  t.equal(model.counters.runsDeflated, runs, 'deflated once')
  t.equal(text(model.payload(q)), fresh(world, q), 'asked for again, the same body')
  t.equal(model.counters.runsInflated, runs, 'from every run inflated')
})

t.test('the plain body sent to a gzip client while many runs deflate lets the runs before it go', async (t) => {
  const { world, model, q } = await plainAskedLongAgo(3000)
  // Flags in several runs changed: more than 512 KB to deflate, on the thread pool.
  for (const i of [100, 700, 1300, 1900, 2500]) world.put({ ...feature(`flag-${String(i).padStart(5, '0')}`, 3), description: 'changed' })
  const payload = model.payload(q)
  t.equal(payload.gzip(), undefined, 'the gzip answer not ready at once')
  t.equal(payload.plain(false).toString(), fresh(world, q), 'the plain body sent meanwhile')
  const inflated = model.counters.runsInflated
  t.equal(payload.plain(false).toString(), fresh(world, q), 'and again')
  t.ok(model.counters.runsInflated - inflated > 10, `the unchanged runs inflated for it (${model.counters.runsInflated - inflated}): they held none of the body before`)
  t.same(gunzipSync(await gzipped(payload)).toString(), fresh(world, q), 'then the gzip answer')
})

t.test('answers kept at a stop are served by the next start without a build, while nothing changed', async (t) => {
  // Bodies under 64 KB, whose compressed copies are made at once.
  const world = new World(names.slice(0, 100).map((name, i) => feature(name, i % 101, i % 3 === 0 ? 'mobile' : 'web', i % 7 === 0 ? [1] : [])))
  const scopes = [query(), query({ projects: ['web'] }), query({ inlineSegmentConstraints: true })]
  const stopping = world.model()
  // The web scope's SDKs asked for gzip only.
  for (const q of scopes) stopping.payload(q).gzip()
  for (const q of scopes.filter((q) => q.projects === '*')) stopping.payload(q).brotli()
  const kept = reader(stopping.kept())
  const started = world.model()
  t.equal(started.takeBack(kept.source), 3, 'every scope offered')
  t.same(kept.read, [], 'nothing read before a scope is asked for')
  for (const q of scopes) {
    const payload = started.payload(q)
    t.equal(text(payload), fresh(world, q), `the same body: ${JSON.stringify(q)}`)
    t.ok(payload.gzipIfReady(), 'with its gzip copy')
    t.same(gunzipSync(payload.gzipIfReady()!).toString(), fresh(world, q), 'which is the body')
    t.equal(payload.brotliIfReady() !== undefined, q.projects === '*', 'and a brotli copy where one was made')
  }
  t.equal(started.counters.flagsSerialised, 0, 'no flag serialised')
  t.ok(kept.closed(), 'the kept file closed once every scope was taken back')
  world.put(feature('flag-050', 7))
  const q = query()
  t.equal(text(started.payload(q)), fresh(world, q), 'a change after it rebuilds from the kept body')
  t.equal(started.counters.flagsSerialised, 1, 'that flag alone')

  const before = world.model()
  const olderFormat = { header: [{ key: 'development\u0000*\u0000\u0000\u0000', query: query(), revision: 0, segmentsRevision: 0, names: [], features: [0, 0], sections: [0, -1, -1, 1, 2] }], sections: [] }
  t.equal(before.takeBack(reader(olderFormat).source), 0, 'a kept file of the format before runs is not taken back')
})

t.test('a kept answer is not taken back once a flag in it changed, or serialises differently now', async (t) => {
  const world = new World(names.map((name, i) => feature(name, i % 101)))
  const model = world.model()
  model.payload(query())
  const kept = reader(model.kept())
  world.put(feature('flag-150', 7))
  const later = world.model()
  later.takeBack(kept.source)
  t.equal(text(later.payload(query())), fresh(world, query()), 'a revision later: built')
  t.equal(later.counters.flagsSerialised, names.length, 'every flag serialised')
  t.same(kept.read, [], 'the kept body not read')

  const same = new World(names.map((name, i) => feature(name, i % 101)))
  const before = same.model()
  before.payload(query())
  const keptSame = before.kept()
  // The same revisions, but every flag's JSON differs (as after an upgrade that changed the client shape).
  for (const f of [...same.projects.values()].flatMap((project) => [...project.features.values()])) same.put({ ...f, stale: true }, false)
  const after = same.model()
  after.takeBack(reader(keptSame).source)
  t.equal(text(after.payload(query())), fresh(same, query()), 'flags that serialise differently: built')
  t.equal(after.counters.flagsSerialised, names.length, 'every flag serialised')
})

t.test('a stop keeps a large body whose compressed copy is still being made; the start makes it when asked', async (t) => {
  const world = new World(wordy(300, 2000))
  const stopping = world.model()
  const q = query()
  t.ok(stopping.payload(q).plainLength > 512 * 1024, 'a body compressed off the event loop')
  t.equal(stopping.payload(q).gzip(), undefined, 'its copy begun')
  const kept = reader(stopping.kept())
  const started = world.model()
  t.equal(started.takeBack(kept.source), 1)
  const payload = started.payload(q)
  t.equal(payload.gzipIfReady(), undefined, 'no copy kept')
  t.equal(text(payload), fresh(world, q))
  t.equal(started.counters.flagsSerialised, 0, 'no flag serialised')
})

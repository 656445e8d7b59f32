import { join } from 'node:path'
import t from 'tap'
import { indexKeysOf } from '../../src/actors/dispatch.js'
import { recover, snapshotEntries, snapshotFormat, type Recovered, type ReplayedReadModel } from '../../src/actors/recovery.js'
import type { EventDraft, EventRecord } from '../../src/domain/events.js'
import { decideInstance, evolveInstance, type InstanceCommand } from '../../src/domain/instance.js'
import { emptyInstance, type InstanceState } from '../../src/domain/instance-state.js'
import { noItems } from '../../src/domain/no-items.js'
import { SmallMap } from '../../src/domain/immutable.js'
import { EventLog } from '../../src/store/log.js'
import { Scenario, environment, featureVariants, valueOf } from '../domain/fixtures/scenario.js'

// Start-up = snapshots + the log after them. Whatever the route, the state must be the one the
// commands were decided against.

const canonical = (value: unknown): unknown => {
  if (value instanceof Map) return { '<map>': [...value].map(([k, v]) => [k, canonical(v)]) }
  if (Array.isArray(value)) return value.map(canonical)
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, canonical(v)]))
  return value
}

const meta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'admin', userId: 1 } }

class Live {
  instance: InstanceState = emptyInstance()
  readonly scenario = new Scenario([environment('development'), environment('production', 'production')])
  private pending: EventDraft[] = []

  instanceCommand(command: InstanceCommand): void {
    const events = valueOf(decideInstance(this.instance, command, { projectExists: () => true, usedInProjects: () => [] }))
    this.instance = events.reduce(evolveInstance, this.instance)
    this.pending.push(...events)
  }

  project(run: (s: Scenario) => void): void {
    const before = this.scenario.events.length
    run(this.scenario)
    this.pending.push(...this.scenario.events.slice(before))
  }

  // What dispatch does: append the decided events and wait for the commit.
  async commit(log: EventLog): Promise<number> {
    const events = this.pending
    this.pending = []
    await log.append<EventRecord>(events, indexKeysOf).committed
    return events.length
  }

  expected() {
    return canonical({ instance: this.instance, projects: this.scenario.projects })
  }
}

const actual = (recovered: Recovered) => canonical({ instance: recovered.instance, projects: recovered.projects })

const firstHalf = (live: Live) => {
  live.instanceCommand({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta })
  live.instanceCommand({ type: 'environment.create', input: { name: 'production', type: 'production', enabled: true }, meta })
  live.instanceCommand({ type: 'apiToken.create', input: { tokenName: 'sdk', type: 'backend' }, random: 'a'.repeat(56), meta })
  live.project((s) => {
    s.createProject('default')
    s.createProject('web', { defaultStickiness: 'userId' })
    s.createFeature('web', 'checkout', { description: 'new checkout' })
    s.createFeature('web', 'search')
    s.createFeature('default', 'banner')
    valueOf(s.toggle('web', 'checkout', 'production', true))
    s.addStrategy('web', 'checkout', 'development', { name: 'userWithId', parameters: { userIds: 'a,b' }, constraints: [{ contextName: 'appName', operator: 'IN', values: ['shop'] }] })
    s.ok('web', { type: 'variants.set', feature: 'checkout', environments: ['production'], variants: featureVariants([{ name: 'a', weight: 1 }, { name: 'b', weight: 1 }]) })
    s.ok('web', { type: 'feature.update', name: 'search', input: { stale: true } })
  })
}

const secondHalf = (live: Live) => {
  live.instanceCommand({ type: 'apiToken.create', input: { tokenName: 'fe', type: 'frontend', environment: 'production' }, random: 'b'.repeat(56), meta })
  live.instanceCommand({ type: 'environment.toggle', name: 'development', enabled: false, meta })
  live.project((s) => {
    s.ok('web', { type: 'feature.archive', names: ['search'] })
    s.ok('web', { type: 'feature.delete', names: ['search'] })
    s.createProject('mobile')
    s.createFeature('mobile', 'dark-mode')
    valueOf(s.toggle('mobile', 'dark-mode', 'development', true))
    const [strategy] = s.strategies('web', 'checkout', 'development')
    s.ok('web', { type: 'strategy.delete', feature: 'checkout', environment: 'development', id: strategy.id })
    s.ok('default', { type: 'feature.archive', names: ['banner'] })
    s.createProject('temp')
    s.ok('temp', { type: 'project.delete' })
  })
}

t.test('recovery from the log alone equals recovery from snapshot + tail', async (t) => {
  const dir = t.testdir()
  const withSnapshot = EventLog.open(join(dir, 'snapshot'))
  const logOnly = EventLog.open(join(dir, 'log-only'))
  const live = new Live()

  firstHalf(live)
  const head = await live.commit(withSnapshot)
  const atSnapshot = recover(withSnapshot)
  t.equal(atSnapshot.fromSnapshot, false)
  t.equal(atSnapshot.replayed, head)
  t.same(actual(atSnapshot), live.expected(), 'the log alone gives the live state')
  const readModel = { seen: head, times: Float64Array.from([1, 2, 3]) }
  const counts = (): ReplayedReadModel & { restored: unknown; applied: number } => ({
    key: 'counts',
    restored: undefined,
    applied: 0,
    restore(state) {
      this.restored = state
    },
    apply() {
      this.applied++
    },
    snapshot: () => readModel,
  })
  await withSnapshot.saveSnapshots(
    snapshotFormat,
    snapshotEntries(atSnapshot.instance, atSnapshot.projects, atSnapshot.changeRequests, withSnapshot.lastId, [counts()]),
  )

  secondHalf(live)
  const tail = await live.commit(withSnapshot)
  t.ok(tail > 5, 'the tail has events')
  // The same events, in the same order, in a log that never had a snapshot.
  for (const record of withSnapshot.from(1)) {
    const { id: _id, ...draft } = record as EventRecord
    await logOnly.append<EventRecord>([draft], indexKeysOf).committed
  }
  await withSnapshot.close()
  await logOnly.close()

  const reopened = EventLog.open(join(dir, 'snapshot'))
  const restoredCounts = counts()
  const fromSnapshot = recover(reopened, [restoredCounts])
  t.equal(fromSnapshot.fromSnapshot, true)
  t.equal(fromSnapshot.replayed, tail, 'only the tail is replayed')
  t.same(restoredCounts.restored, { seen: head, times: Float64Array.from([1, 2, 3]) }, 'a read model gets its own entry back')
  t.equal(restoredCounts.applied, tail, 'and then the records after the snapshot')
  t.equal(fromSnapshot.lastId, head + tail)

  const plain = EventLog.open(join(dir, 'log-only'))
  const fromLog = recover(plain)
  t.equal(fromLog.fromSnapshot, false)
  t.equal(fromLog.replayed, head + tail)

  t.same(actual(fromSnapshot), actual(fromLog), 'snapshot + tail equals the log alone')
  t.same(actual(fromLog), live.expected(), 'and both equal the live state')
  t.notOk(fromLog.projects.has('temp'), 'a deleted project stays deleted')
  t.ok(fromSnapshot.projects.get('mobile')?.features.has('dark-mode'), 'a project created after the snapshot is there')
  t.equal(fromSnapshot.instance.apiTokens.size, 2)
  await reopened.close()
  await plain.close()
})

t.test('a state restored from a snapshot holds one frozen empty list for every list it has no items in, and changes as before', async (t) => {
  const dir = t.testdir()
  const log = EventLog.open(dir)
  const live = new Live()
  firstHalf(live)
  await live.commit(log)
  const state = recover(log)
  await log.saveSnapshots(snapshotFormat, snapshotEntries(state.instance, state.projects, state.changeRequests, log.lastId))
  await log.close()

  const reopened = EventLog.open(dir)
  const restored = recover(reopened)
  t.equal(restored.fromSnapshot, true)
  const banner = restored.projects.get('default')!.features.get('banner')!
  t.equal(banner.dependencies, noItems, "a flag's dependencies")
  t.equal(banner.tags, noItems, "a flag's tags")
  t.ok(banner.environments instanceof SmallMap, "a flag's environments are a SmallMap")
  t.equal(banner.environments.get('development')!.strategies, noItems, "an environment's strategies (inside the SmallMap)")
  t.equal(restored.projects.get('web')!.features.get('checkout')!.environments.get('development')!.strategies[0].segments, noItems, "a strategy's segments")
  t.ok(Object.isFrozen(noItems) && noItems.length === 0, 'the list is frozen and empty')
  await reopened.close()

  // The events after the snapshot change the restored state as they change the live one.
  const again = EventLog.open(dir)
  secondHalf(live)
  await live.commit(again)
  t.same(actual(recover(again)), live.expected())
  await again.close()
})

t.test('a snapshot that cannot be trusted is ignored and the log replayed', async (t) => {
  const path = t.testdir()
  const live = new Live()
  let log = EventLog.open(path)
  firstHalf(live)
  await live.commit(log)
  secondHalf(live)
  await live.commit(log)
  const state = recover(log)

  t.test('another format', async (t) => {
    await log.saveSnapshots(snapshotFormat + 1, snapshotEntries(state.instance, state.projects, state.changeRequests, log.lastId))
    const recovered = recover(log)
    t.equal(recovered.fromSnapshot, false)
    t.equal(recovered.replayed, log.lastId)
    t.same(actual(recovered), live.expected())
  })

  t.test('a snapshot claiming events the log does not hold', async (t) => {
    await log.saveSnapshots(snapshotFormat, snapshotEntries(state.instance, new Map(), state.changeRequests, log.lastId + 10))
    const recovered = recover(log)
    t.equal(recovered.fromSnapshot, false)
    t.same(actual(recovered), live.expected())
  })

  t.test('a good snapshot at the end of the log replays nothing', async (t) => {
    await log.saveSnapshots(snapshotFormat, snapshotEntries(state.instance, state.projects, state.changeRequests, log.lastId))
    await log.close()
    log = EventLog.open(path)
    const recovered = recover(log)
    t.equal(recovered.fromSnapshot, true)
    t.equal(recovered.replayed, 0)
    t.same(actual(recovered), live.expected())
  })

  t.teardown(() => log.close())
})

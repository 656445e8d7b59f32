import t from 'tap'
import { CommitPipeline } from '../../src/actors/commit-pipeline.js'
import { Dispatcher, indexKeysOf } from '../../src/actors/dispatch.js'
import { recover } from '../../src/actors/recovery.js'
import { Registry } from '../../src/actors/registry.js'
import { DomainError } from '../../src/domain/errors.js'
import type { CommandMeta, EventRecord } from '../../src/domain/events.js'
import { EventLog, type EventLogOptions } from '../../src/store/log.js'
import { featureInput, projectInput } from '../domain/fixtures/scenario.js'

// One write end to end below HTTP: the actor decides, appends, and once the log commits its committed
// state moves and the commit goes through the pipeline.

const meta = (): CommandMeta => ({ now: '2024-01-01T00:00:00.000Z', actor: { name: 'admin', userId: 1 } })

const start = (path: string, options: EventLogOptions = {}) => {
  const log = EventLog.open(path, options)
  const recovered = recover(log)
  const fatal: unknown[] = []
  const registry = new Registry(recovered, { log, indexKeysOf, onCommitFailed: (error) => fatal.push(error) })
  const dispatcher = new Dispatcher(registry)
  registry.start(new CommitPipeline({}, recovered.lastId))
  return { log, registry, dispatcher, fatal }
}

const kindOf = (pending: Promise<unknown>): Promise<string> =>
  pending.then(
    () => 'resolved',
    (error: unknown) => (error instanceof DomainError ? error.kind : `not a DomainError: ${String(error)}`),
  )

t.test('a decided command is committed with log ids, then published', async (t) => {
  const { log, registry, dispatcher, fatal } = start(t.testdir())
  t.teardown(() => log.close())
  const seen: EventRecord[][] = []
  dispatcher.onCommitted((records) => seen.push(records))

  const envs = await dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta: meta() })
  t.same(envs.map((r) => [r.id, r.type]), [[1, 'environment-created']])
  t.ok(registry.committedInstance.environments.has('development'), 'the committed view moved after the commit')

  const created = await dispatcher.toProject('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'web' }), meta: meta() })
  t.same(created.map((r) => [r.id, r.type, r.project]), [[2, 'project-created', 'web']])
  const pending = dispatcher.toProject('web', { type: 'feature.create', input: featureInput({ name: 'checkout' }), meta: meta() })
  t.ok(registry.project('web')?.getSnapshot().context.inFlight?.state?.features.has('checkout'), 'decided at once: the decision is in flight')
  t.equal(log.lastId, 3, 'and appended in the same step')
  t.notOk(registry.committedProjects.get('web')?.features.has('checkout'), 'not committed before the log says so')
  const [feature] = await pending
  t.equal(feature.id, 3)
  t.ok(registry.committedProjects.get('web')?.features.has('checkout'))
  t.equal(registry.lastCommittedId, 3)
  t.same(seen.map((records) => records.map((r) => r.id)), [[1], [2], [3]], 'listeners see each commit once, in order')
  t.same(log.idsFor('feature:checkout'), [3])
  t.same(fatal, [])
})

t.test('a rejected command throws its DomainError and appends nothing', async (t) => {
  const { log, dispatcher } = start(t.testdir())
  t.teardown(() => log.close())
  await dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta: meta() })
  await dispatcher.toProject('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'web' }), meta: meta() })
  t.equal(await kindOf(dispatcher.toProject('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'web' }), meta: meta() })), 'NameExistsError')
  t.equal(await kindOf(dispatcher.toProject('nope', { type: 'feature.create', input: featureInput({ name: 'x' }), meta: meta() })), 'NotFoundError')
  t.equal(await kindOf(dispatcher.toProject('web', { type: 'feature.archive', names: ['missing'], meta: meta() })), 'NotFoundError')
  t.equal(log.lastId, 2, 'nothing more in the log')
})

t.test('a command that decides nothing appends nothing', async (t) => {
  const { log, dispatcher } = start(t.testdir())
  t.teardown(() => log.close())
  await dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta: meta() })
  t.same(await dispatcher.toInstance({ type: 'apiToken.delete', secretHash: 'unknown', meta: meta() }), [])
  t.equal(log.lastId, 1)
})

t.test('concurrent commands to one project are decided and committed in send order', async (t) => {
  const { log, registry, dispatcher } = start(t.testdir())
  t.teardown(() => log.close())
  await dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta: meta() })
  await dispatcher.toProject('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'web' }), meta: meta() })
  const names = Array.from({ length: 20 }, (_, i) => `f${i}`)
  const results = await Promise.all(names.map((name) => dispatcher.toProject('web', { type: 'feature.create', input: featureInput({ name }), meta: meta() })))
  t.same(results.map(([r]) => r.featureName), names)
  t.same(results.map(([r]) => r.id), names.map((_, i) => i + 3))
  t.equal(registry.committedProjects.get('web')?.features.size, 20)
})

t.test('after a restart the recovered state is the committed state', async (t) => {
  const path = t.testdir()
  const first = start(path)
  await first.dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta: meta() })
  await first.dispatcher.toProject('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'web' }), meta: meta() })
  await first.dispatcher.toProject('web', { type: 'feature.create', input: featureInput({ name: 'checkout' }), meta: meta() })
  await first.dispatcher.toProject('web', {
    type: 'featureEnvironment.toggle',
    feature: 'checkout',
    environment: 'development',
    enabled: true,
    activateDisabledStrategies: false,
    newStrategyId: 's-1',
    meta: meta(),
  })
  const committed = first.registry.committedProjects.get('web')
  await first.log.close()

  const second = start(path)
  t.teardown(() => second.log.close())
  t.same(second.registry.committedProjects.get('web'), committed)
  t.same(second.registry.committedInstance.environments, first.registry.committedInstance.environments)
  t.equal(second.registry.lastCommittedId, 5)
})

t.test('a failed commit (a full disk) is a 503 that changes nothing, and the next write goes through', async (t) => {
  let diskFull = false
  const dir = t.testdir()
  const { log, registry, dispatcher, fatal } = start(dir, {
    writeGate: () => {
      if (diskFull) throw new Error('MDB_MAP_FULL: the disk is full')
    },
  })
  await dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta: meta() })
  await dispatcher.toProject('web', { type: 'project.create', id: 'web', input: projectInput({ name: 'web' }), meta: meta() })
  diskFull = true
  const lost = [
    dispatcher.toProject('web', { type: 'feature.create', input: featureInput({ name: 'lost-1' }), meta: meta() }),
    dispatcher.toProject('web', { type: 'feature.create', input: featureInput({ name: 'lost-2' }), meta: meta() }),
  ]
  t.same(await Promise.all(lost.map(kindOf)), ['ServiceUnavailableError', 'ServiceUnavailableError'])
  t.equal(fatal.length, 2, 'each failure is reported')
  t.notOk(registry.project('web')?.getSnapshot().context.state?.features.has('lost-1'), 'the committed state is as it was')
  t.equal(registry.project('web')?.getSnapshot().context.inFlight, undefined, 'nothing is left in flight')
  t.notOk(registry.committedProjects.get('web')?.features.has('lost-2'))
  t.equal(log.lastId, 2, 'the lost ids are handed out again')

  diskFull = false
  const [kept] = await dispatcher.toProject('web', { type: 'feature.create', input: featureInput({ name: 'lost-1' }), meta: meta() })
  t.equal(kept.id, 3, 'the name is free again and the id follows the last committed one')
  await log.close()
  const reopened = EventLog.open(dir)
  t.same(Array.from(reopened.from(1), (record) => record.id), [1, 2, 3], 'the log holds no gap')
  await reopened.close()
})

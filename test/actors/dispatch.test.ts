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
  await new Promise((resolve) => setImmediate(resolve))
  t.ok(registry.project('web')?.getSnapshot().context.inFlight?.state?.features.has('checkout'), 'decided once the turn ends: the decision is in flight')
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

const setUp = async (path: string, options: EventLogOptions = {}, projects = ['web']) => {
  const started = start(path, options)
  await started.dispatcher.toInstance({ type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta: meta() })
  for (const id of projects) await started.dispatcher.toProject(id, { type: 'project.create', id, input: projectInput({ name: id }), meta: meta() })
  return started
}

t.test('commands that queue while their project commits are decided together and appended at once', async (t) => {
  const { log, dispatcher } = await setUp(t.testdir())
  t.teardown(() => log.close())
  const appends: number[][] = []
  dispatcher.onCommitted((records) => appends.push(records.map((r) => r.id)))
  const names = Array.from({ length: 12 }, (_, i) => `g${i}`)
  const create = (name: string) => dispatcher.toProject('web', { type: 'feature.create', input: featureInput({ name }), meta: meta() })
  const first = names.slice(0, 4).map(create)
  await new Promise((resolve) => setImmediate(resolve))
  const more = names.slice(4).map(create)
  const results = await Promise.all([...first, ...more])
  t.same(appends, [[3, 4, 5, 6], [7, 8, 9, 10, 11, 12, 13, 14]], 'the four posted in one turn go in one append; the eight that came while it committed, in the next')
  t.same(results.map((records) => records.map((r) => r.featureName)), names.map((name) => [name]), 'each caller gets its own records')
})

t.test('two projects creating the same flag name at once: the second decision sees the first in flight', async (t) => {
  const { log, dispatcher, registry } = await setUp(t.testdir(), {}, ['a', 'b'])
  t.teardown(() => log.close())
  const inA = dispatcher.toProject('a', { type: 'feature.create', input: featureInput({ name: 'same' }), meta: meta() })
  const inB = dispatcher.toProject('b', { type: 'feature.create', input: featureInput({ name: 'same' }), meta: meta() })
  t.same(await Promise.all([kindOf(inA), kindOf(inB)]), ['resolved', 'NameExistsError'])
  t.ok(registry.committedProjects.get('a')?.features.has('same'))
  t.notOk(registry.committedProjects.get('b')?.features.has('same'))
})

t.test('coordinators holding the same projects in opposite orders all finish (one global order)', async (t) => {
  const { log, dispatcher, registry } = await setUp(t.testdir(), {}, ['a', 'b'])
  t.teardown(() => log.close())
  await dispatcher.toProject('a', { type: 'feature.create', input: featureInput({ name: 'x' }), meta: meta() })
  await dispatcher.toProject('b', { type: 'feature.create', input: featureInput({ name: 'y' }), meta: meta() })
  const all = Promise.all([
    kindOf(dispatcher.moveFeature('a', 'b', 'x', meta())),
    kindOf(dispatcher.toProject('b', { type: 'feature.create', input: featureInput({ name: 'z' }), meta: meta() })),
    kindOf(dispatcher.moveFeature('b', 'a', 'y', meta())),
    kindOf(dispatcher.together([{ projectId: 'b', command: { type: 'feature.update', name: 'z', input: { description: 'both' }, meta: meta() } }, { projectId: 'a', command: { type: 'feature.update', name: 'y', input: { description: 'both' }, meta: meta() } }], [])),
    kindOf(dispatcher.toProject('a', { type: 'feature.create', input: featureInput({ name: 'w' }), meta: meta() })),
  ])
  const timeout = new Promise((resolve) => setTimeout(() => resolve('deadlock'), 5000).unref())
  t.same(await Promise.race([all, timeout]), ['resolved', 'resolved', 'resolved', 'resolved', 'resolved'])
  t.same([...registry.committedProjects.get('a')!.features.keys()].sort(), ['w', 'y'])
  t.same([...registry.committedProjects.get('b')!.features.keys()].sort(), ['x', 'z'])
  t.equal(registry.committedProjects.get('a')!.features.get('y')?.description, 'both', 'the together after the moves saw them')
})

t.test('a coordinated commit that fails changes no project; the next one goes through', async (t) => {
  let diskFull = false
  const { log, dispatcher, registry, fatal } = await setUp(t.testdir(), { writeGate: () => { if (diskFull) throw new Error('MDB_MAP_FULL') } }, ['a', 'b'])
  t.teardown(() => log.close())
  await dispatcher.toProject('a', { type: 'feature.create', input: featureInput({ name: 'x' }), meta: meta() })
  const before = [registry.committedProjects.get('a'), registry.committedProjects.get('b')]
  diskFull = true
  t.equal(await kindOf(dispatcher.moveFeature('a', 'b', 'x', meta())), 'ServiceUnavailableError')
  t.equal(fatal.length, 1)
  t.equal(registry.committedProjects.get('a'), before[0], 'the source as it was')
  t.equal(registry.committedProjects.get('b'), before[1], 'the target as it was')
  t.same([...registry.decidedProjects()].map(([id, state]) => [id, state.features.has('x')]), [['a', true], ['b', false]], 'nothing left in flight')
  diskFull = false
  t.equal(await kindOf(dispatcher.moveFeature('a', 'b', 'x', meta())), 'resolved')
  t.ok(registry.committedProjects.get('b')?.features.has('x'))
})

t.test('a plan that waited for the instance cannot leave a project with the environment it deletes', async (t) => {
  const { log, dispatcher, registry } = await setUp(t.testdir())
  t.teardown(() => log.close())
  await dispatcher.toInstance({ type: 'environment.create', input: { name: 'staging', type: 'test', enabled: true }, meta: meta() })
  // The instance is busy; the deletion is planned now, while no project uses staging.
  const busy = dispatcher.toInstance({ type: 'environment.create', input: { name: 'qa', type: 'test', enabled: true }, meta: meta() })
  const steps = [...registry.decidedProjects()].filter(([, p]) => p.environments.has('staging')).map(([projectId]) => ({ projectId, command: { type: 'projectEnvironment.dropDeleted' as const, environment: 'staging', meta: meta() } }))
  const deletion = dispatcher.together(steps, [{ type: 'environment.delete', name: 'staging', meta: meta() }])
  // Meanwhile a project takes staging up.
  const added = dispatcher.toProject('web', { type: 'projectEnvironment.add', input: { environment: 'staging' }, defaultStrategy: null, meta: meta() })
  t.same(await Promise.all([kindOf(busy), kindOf(added), kindOf(deletion)]), ['resolved', 'resolved', 'ConflictError'])
  await t.rejects(deletion, { message: /Project web started using environment staging while it was being deleted/ })
  t.ok(registry.committedInstance.environments.has('staging'), 'the environment is still there')
  t.ok(registry.committedProjects.get('web')?.environments.has('staging'), 'for the project that uses it')
})

import t from 'tap'
import { initialTransition, transition, type SnapshotFrom } from 'xstate'
import { projectMachine } from '../../src/actors/project.machine.js'
import type { ProjectCommand } from '../../src/domain/project.js'
import type { ProjectState } from '../../src/domain/project-state.js'
import { Scenario, featureInput, projectInput, valueOf, type ProjectCommandInput } from '../domain/fixtures/scenario.js'
import { appendDone, command as asCommand, decideNow, nodeOf, reportsOf, step } from '../helpers/machines.js'

// Pure transitions only: no actor is started, no action runs; what the machine reports is read from
// the returned `xstate.emit` actions, and its append is committed by the done event of the invoked
// append (test/helpers/machines.ts). A command's decision is what it was answered: its committed
// events, or its rejection.

type Snapshot = SnapshotFrom<typeof projectMachine>

// The project's life: absent or active (it has a committed state), or deleted (the machine is done).
const lifeOf = (snapshot: Snapshot) => (snapshot.status === 'done' ? 'deleted' : snapshot.context.state ? 'active' : 'absent')
const send = (snapshot: Snapshot, input: ProjectCommand) => {
  const { next, decisions } = step(projectMachine, snapshot, asCommand(input))
  return [next, decisions] as const
}

const scenario = new Scenario()
const command = (input: ProjectCommandInput): ProjectCommand => ({ ...input, meta: scenario.meta(), world: scenario.world() }) as ProjectCommand

const create = (id = 'web') => command({ type: 'project.create', id, input: projectInput({ name: id }) })

const active = (): [Snapshot, ProjectState] => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [snapshot] = send(absent, create())
  return [snapshot, snapshot.context.state!]
}

t.test('a machine without state starts absent; with state, active', async (t) => {
  const [absent, actions] = initialTransition(projectMachine, { state: undefined })
  t.equal(lifeOf(absent), 'absent')
  t.equal(absent.context.state, undefined)
  t.same(reportsOf(actions), [])

  const [, state] = active()
  const [restored] = initialTransition(projectMachine, { state })
  t.equal(lifeOf(restored), 'active')
  t.equal(restored.context.state, state, 'the recovered state is taken as is')
})

t.test('absent → active: project.create decides project-created and evolves the context', async (t) => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [next, decisions] = send(absent, create('web'))
  t.equal(lifeOf(next), 'active')
  t.equal(decisions.length, 1, 'exactly one decision is emitted')
  const [decision] = decisions
  t.equal(decision.type, 'decided')
  if (decision.type !== 'decided') return
  t.same(decision.events.map((e) => e.type), ['project-created'])
  t.equal(next.context.state?.settings.id, 'web')
  t.same([...(next.context.state?.environments.keys() ?? [])].sort(), ['development', 'production'])
  t.equal(absent.context.state, undefined, 'the earlier snapshot is untouched')
})

t.test('absent: a refused create stays absent and emits the rejection', async (t) => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [next, [decision]] = send(absent, command({ type: 'project.create', id: 'web', input: projectInput({ name: 'web', environments: ['mars'] }) }))
  t.equal(lifeOf(next), 'absent')
  t.equal(next.context.state, undefined)
  t.equal(decision.type, 'rejected')
  t.equal(decision.type === 'rejected' && decision.error.kind, 'BadDataError')
})

t.test('absent: any other command is rejected as not found', async (t) => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [next, decisions] = send(absent, command({ type: 'feature.create', input: featureInput({ name: 'checkout' }) }))
  t.equal(lifeOf(next), 'absent')
  t.equal(decisions.length, 1)
  t.equal(decisions[0].type === 'rejected' && decisions[0].error.kind, 'NotFoundError')
})

t.test('active: a command is decided, the context evolves, the decision carries the events', async (t) => {
  const [snapshot, before] = active()
  const [next, [decision]] = send(snapshot, command({ type: 'feature.create', input: featureInput({ name: 'checkout' }) }))
  t.equal(lifeOf(next), 'active')
  t.equal(decision.type, 'decided')
  if (decision.type !== 'decided') return
  t.same(decision.events.map((e) => e.type), ['feature-created'])
  t.ok(next.context.state?.features.has('checkout'))
  t.notOk(before.features.has('checkout'), 'the state decided against is not changed')
  t.equal(snapshot.context.state, before)
})

t.test('active: a decided command emits its events, as they will be logged', async (t) => {
  // A scenario of its own, so the clock reads the same whatever ran before.
  const own = new Scenario()
  const ownCommand = (input: ProjectCommandInput): ProjectCommand => ({ ...input, meta: own.meta(), world: own.world() }) as ProjectCommand
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [snapshot] = send(absent, ownCommand({ type: 'project.create', id: 'web', input: projectInput({ name: 'web' }) }))
  const [, [decision]] = send(snapshot, ownCommand({ type: 'feature.create', input: featureInput({ name: 'checkout', description: 'd' }) }))
  t.same(decision, {
    type: 'decided',
    events: [
      {
        type: 'feature-created',
        createdAt: '2024-01-01T00:00:01.000Z',
        createdBy: 'tester@example.com',
        createdByUserId: 7,
        project: 'web',
        featureName: 'checkout',
        data: { name: 'checkout', description: 'd', type: 'release', project: 'web', stale: false, createdAt: '2024-01-01T00:00:01.000Z', impressionData: false, archived: false },
        tags: [],
      },
    ],
  })
})

t.test('active: a rejected command keeps the context and emits rejected', async (t) => {
  const [snapshot] = active()
  const [withFlag] = send(snapshot, command({ type: 'feature.create', input: featureInput({ name: 'checkout' }) }))
  const [next, decisions] = send(withFlag, command({ type: 'feature.archive', names: ['nope'] }))
  t.equal(lifeOf(next), 'active')
  t.equal(next.context.state, withFlag.context.state, 'the very same state object')
  t.equal(decisions.length, 1)
  t.equal(decisions[0].type === 'rejected' && decisions[0].error.kind, 'NotFoundError')
})

t.test('active: a command that decides nothing emits decided with no events', async (t) => {
  const [snapshot] = active()
  const [next, decisions] = send(snapshot, command({ type: 'feature.delete', names: [] }))
  t.same(decisions, [{ type: 'decided', events: [] }])
  t.equal(lifeOf(next), 'active')
})

t.test('active: project.create is rejected as a 409', async (t) => {
  const [snapshot] = active()
  const [next, [decision]] = send(snapshot, create('web'))
  t.equal(lifeOf(next), 'active')
  t.equal(next.context.state, snapshot.context.state)
  t.equal(decision.type === 'rejected' && decision.error.kind, 'NameExistsError')
  t.equal(decision.type === 'rejected' && decision.error.message, 'A project with this id already exists.')
})

t.test('active → deleted: project.delete empties the context and the machine is done', async (t) => {
  const [snapshot] = active()
  const [next, [decision]] = send(snapshot, command({ type: 'project.delete' }))
  t.equal(lifeOf(next), 'deleted')
  t.equal(next.status, 'done')
  t.equal(next.context.state, undefined)
  t.same(decision.type === 'decided' && decision.events.map((e) => e.type), ['project-deleted'])
})

t.test('active: deleting the default project is refused and the machine stays active', async (t) => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [snapshot] = send(absent, create('default'))
  const [next, decisions] = send(snapshot, command({ type: 'project.delete' }))
  t.equal(lifeOf(next), 'active')
  t.equal(next.context.state, snapshot.context.state)
  t.equal(decisions[0].type, 'rejected')
})

t.test('deleted: the final state takes no more commands', async (t) => {
  const [snapshot] = active()
  const [deleted] = send(snapshot, command({ type: 'project.delete' }))
  for (const input of [create('web'), command({ type: 'feature.create', input: featureInput({ name: 'x' }) })]) {
    const [next, actions] = transition(projectMachine, deleted, asCommand(input))
    t.equal(lifeOf(next), 'deleted')
    t.same(reportsOf(actions), [], `${input.type} emits nothing (dispatch answers 404)`)
  }
})

t.test('a sequence of transitions equals folding the decisions', async (t) => {
  const s = new Scenario()
  let [snapshot] = initialTransition(projectMachine, { state: undefined })
  const inputs: ProjectCommandInput[] = [
    { type: 'project.create', id: 'web', input: projectInput({ name: 'web' }) },
    { type: 'feature.create', input: featureInput({ name: 'checkout' }) },
    { type: 'featureEnvironment.toggle', feature: 'checkout', environment: 'development', enabled: true, activateDisabledStrategies: false, newStrategyId: 's-1' },
    { type: 'feature.update', name: 'checkout', input: { stale: true } },
  ]
  for (const input of inputs) {
    const full = { ...input, meta: s.meta(), world: s.world() } as ProjectCommand
    const [next, [decision]] = send(snapshot, full)
    t.equal(decision.type, 'decided', input.type)
    if (decision.type === 'decided') s.apply('web', decision.events)
    snapshot = next
  }
  t.same(snapshot.context.state, s.project('web'))
})

// The write path: decide, commit (the invoked append), and what waits meanwhile.

const writerOf = (snapshot: Snapshot) => nodeOf(snapshot, ['live'])

t.test('a decided command waits in committing for its append; the committed state moves only when it is done', async (t) => {
  const [snapshot, before] = active()
  const create = asCommand(command({ type: 'feature.create', input: featureInput({ name: 'checkout' }) }), 7)
  const [committing, actions] = transition(projectMachine, snapshot, create)
  t.equal(writerOf(committing), 'committing', 'a project that expects one command decides it at once')
  t.same(reportsOf(actions), [], 'nothing is answered before the commit')
  t.equal(committing.context.state, before, 'the committed state is the one before')
  t.same(committing.context.inFlight?.events.map((e) => e.type), ['feature-created'], 'the decision is in flight')
  t.ok(committing.context.inFlight?.state?.features.has('checkout'))
  t.ok(committing.children.append, 'the append is an invoked actor')

  const [done, doneActions] = decideNow(projectMachine, committing, appendDone(committing.context.inFlight!.events, 3))
  t.equal(writerOf(done), 'idle')
  t.equal(done.context.state, committing.context.inFlight?.state, 'the decided state, now committed')
  t.equal(done.context.inFlight, undefined)
  t.match(reportsOf(doneActions), [{ type: 'committed', records: [{ id: 3, type: 'feature-created' }], answers: [{ ticket: 7, from: 0, count: 1 }] }])
})

t.test('commands that arrive while committing wait, then are decided in order and appended at once', async (t) => {
  const [snapshot] = active()
  let [s] = decideNow(projectMachine, snapshot, asCommand(command({ type: 'feature.create', input: featureInput({ name: 'a' }) }), 1))
  for (const [ticket, input] of [
    [2, command({ type: 'feature.create', input: featureInput({ name: 'b' }) })],
    [3, command({ type: 'feature.archive', names: ['nope'] })],
    [4, command({ type: 'feature.archive', names: ['b'] })],
  ] as const) {
    const [next, actions] = transition(projectMachine, s, asCommand(input, ticket))
    t.same(reportsOf(actions), [], `command ${ticket} waits`)
    s = next
  }
  t.equal(s.context.queue.length, 3)
  t.same(s.context.inFlight?.events.map((e) => e.featureName), ['a'], 'the first append is not touched')

  const [answered, answeredActions] = transition(projectMachine, s, appendDone(s.context.inFlight!.events, 3) as never)
  t.match(reportsOf(answeredActions), [{ type: 'committed', answers: [{ ticket: 1 }] }], 'the first commit is reported')
  t.equal(writerOf(answered), 'gathering', 'the three that waited wait a little longer for the answered caller (group commit)')
  // Nobody else comes: the wait ends by its timer.
  const timer = answeredActions.find((a) => a.type === 'xstate.raise' && String((a.params as { event: { type: string } }).event.type).includes('gathering'))
  const [next, actions] = decideNow(projectMachine, answered, (timer!.params as { event: unknown }).event)
  t.match(reportsOf(actions), [{ type: 'refused', ticket: 3, error: { kind: 'NotFoundError' } }], 'archiving a flag that does not exist is refused, alone')
  t.equal(writerOf(next), 'committing', 'the others are in the next append')
  t.same(next.context.inFlight?.events.map((e) => [e.type, e.featureName]), [['feature-created', 'b'], ['feature-archived', 'b']], 'decided in order, each on the state the one before left')
  t.same(next.context.inFlight?.answers, [{ ticket: 2, from: 0, count: 1 }, { ticket: 4, from: 1, count: 1 }], 'each is answered with its own records')
  t.equal(next.context.queue.length, 0)
})

t.test('a failed append leaves the committed state as it was and reports who was refused', async (t) => {
  const [snapshot, before] = active()
  const [committing] = decideNow(projectMachine, snapshot, asCommand(command({ type: 'feature.create', input: featureInput({ name: 'lost' }) }), 5))
  const [failed, actions] = transition(projectMachine, committing, { type: 'xstate.error.actor.append', actorId: 'append', error: new Error('MDB_MAP_FULL') } as never)
  t.equal(writerOf(failed), 'idle')
  t.equal(failed.context.state, before, 'nothing changed')
  t.equal(failed.context.inFlight, undefined)
  t.match(reportsOf(actions), [{ type: 'commitFailed', tickets: [5] }])
})

t.test('a held project decides nothing of its own until it is released', async (t) => {
  const [snapshot, before] = active()
  const [held, holdActions] = transition(projectMachine, snapshot, { type: 'hold', ticket: 9 })
  t.equal(writerOf(held), 'held')
  t.same(reportsOf(holdActions), [{ type: 'granted', ticket: 9 }])
  const [waiting, actions] = transition(projectMachine, held, asCommand(command({ type: 'feature.create', input: featureInput({ name: 'later' }) }), 10))
  t.same(reportsOf(actions), [])
  t.equal(waiting.context.queue.length, 1, 'the command waits')
  const lentState = { ...before, features: before.features }
  const [lent] = transition(projectMachine, waiting, { type: 'lend', state: lentState })
  t.equal(lent.context.inFlight?.state, lentState, "the coordinator's decision is in flight here")
  const [released] = decideNow(projectMachine, lent, { type: 'release', committed: true, state: lentState })
  t.equal(released.context.state, lentState, 'released with the committed state')
  t.equal(writerOf(released), 'committing', 'then the waiting command is decided')
})

t.test('group commit: after an append of n commands, a project waits for n (at most as long as that commit took)', async (t) => {
  const [snapshot] = active()
  let [s] = decideNow(projectMachine, snapshot, asCommand(command({ type: 'feature.create', input: featureInput({ name: 'a' }) }), 1))
  for (const [ticket, name] of [[2, 'b'], [3, 'c'], [4, 'd']] as const) [s] = transition(projectMachine, s, asCommand(command({ type: 'feature.create', input: featureInput({ name }) }), ticket))
  ;[s] = decideNow(projectMachine, s, { ...appendDone(s.context.inFlight!.events, 3), output: { ...appendDone(s.context.inFlight!.events, 3).output, commitSeconds: 0.004 } })
  t.same(s.context.inFlight?.answers.map((a) => a.ticket), [2, 3, 4], 'the three that waited go in the next append')
  const [idle] = decideNow(projectMachine, s, { ...appendDone(s.context.inFlight!.events, 4), output: { ...appendDone(s.context.inFlight!.events, 4).output, commitSeconds: 0.004 } })
  t.same(idle.context.gathering, { expected: 3, waitMs: 4 }, 'it now expects three callers back, for at most 4 ms')

  const [waiting, waitingActions] = transition(projectMachine, idle, asCommand(command({ type: 'feature.create', input: featureInput({ name: 'e' }) }), 5))
  t.equal(writerOf(waiting), 'gathering', 'one command is not enough: it waits')
  t.ok(waitingActions.some((a) => a.type === 'xstate.raise' && (a.params as { delay?: number }).delay === 4), 'for at most as long as the last commit')
  const [stillWaiting] = transition(projectMachine, waiting, asCommand(command({ type: 'feature.create', input: featureInput({ name: 'f' }) }), 6))
  t.equal(writerOf(stillWaiting), 'gathering')
  const [deciding] = transition(projectMachine, stillWaiting, asCommand(command({ type: 'feature.create', input: featureInput({ name: 'g' }) }), 7))
  t.equal(writerOf(deciding), 'committing', 'the third one: all three are decided together')
  t.same(deciding.context.inFlight?.answers.map((a) => a.ticket), [5, 6, 7])

  const [alone] = decideNow(projectMachine, waiting, { type: 'hold', ticket: 8 })
  t.equal(writerOf(alone), 'committing', 'a hold behind it is not kept waiting: the command goes now')
})

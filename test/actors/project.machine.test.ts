import t from 'tap'
import { initialTransition, transition, type SnapshotFrom } from 'xstate'
import type { Decision } from '../../src/actors/decision.js'
import { projectMachine } from '../../src/actors/project.machine.js'
import type { ProjectCommand } from '../../src/domain/project.js'
import type { ProjectState } from '../../src/domain/project-state.js'
import { Scenario, featureInput, projectInput, valueOf, type ProjectCommandInput } from '../domain/fixtures/scenario.js'

// Pure transitions only: no actor is started, no action runs; emitted decisions are read from the
// returned `xstate.emit` actions.

type Snapshot = SnapshotFrom<typeof projectMachine>

const emitted = (actions: readonly { type: string; params?: unknown }[]): Decision[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: Decision }).event)

const scenario = new Scenario()
const command = (input: ProjectCommandInput): ProjectCommand => ({ ...input, meta: scenario.meta(), world: scenario.world() }) as ProjectCommand

const create = (id = 'web') => command({ type: 'project.create', id, input: projectInput({ name: id }) })

const active = (): [Snapshot, ProjectState] => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [snapshot] = transition(projectMachine, absent, create())
  return [snapshot, snapshot.context.state!]
}

t.test('a machine without state starts absent; with state, active', async (t) => {
  const [absent, actions] = initialTransition(projectMachine, { state: undefined })
  t.equal(absent.value, 'absent')
  t.equal(absent.context.state, undefined)
  t.same(emitted(actions), [])

  const [, state] = active()
  const [restored] = initialTransition(projectMachine, { state })
  t.equal(restored.value, 'active')
  t.equal(restored.context.state, state, 'the recovered state is taken as is')
})

t.test('absent → active: project.create decides project-created and evolves the context', async (t) => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [next, actions] = transition(projectMachine, absent, create('web'))
  t.equal(next.value, 'active')
  const decisions = emitted(actions)
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
  const [next, actions] = transition(projectMachine, absent, command({ type: 'project.create', id: 'web', input: projectInput({ name: 'web', environments: ['mars'] }) }))
  t.equal(next.value, 'absent')
  t.equal(next.context.state, undefined)
  const [decision] = emitted(actions)
  t.equal(decision.type, 'rejected')
  t.equal(decision.type === 'rejected' && decision.error.kind, 'BadDataError')
})

t.test('absent: any other command is rejected as not found', async (t) => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [next, actions] = transition(projectMachine, absent, command({ type: 'feature.create', input: featureInput({ name: 'checkout' }) }))
  t.equal(next.value, 'absent')
  const decisions = emitted(actions)
  t.equal(decisions.length, 1)
  t.equal(decisions[0].type === 'rejected' && decisions[0].error.kind, 'NotFoundError')
})

t.test('active: a command is decided, the context evolves, the decision carries the events', async (t) => {
  const [snapshot, before] = active()
  const [next, actions] = transition(projectMachine, snapshot, command({ type: 'feature.create', input: featureInput({ name: 'checkout' }) }))
  t.equal(next.value, 'active')
  const [decision] = emitted(actions)
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
  const [snapshot] = transition(projectMachine, absent, ownCommand({ type: 'project.create', id: 'web', input: projectInput({ name: 'web' }) }))
  const [, actions] = transition(projectMachine, snapshot, ownCommand({ type: 'feature.create', input: featureInput({ name: 'checkout', description: 'd' }) }))
  const [decision] = emitted(actions)
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
  const [withFlag] = transition(projectMachine, snapshot, command({ type: 'feature.create', input: featureInput({ name: 'checkout' }) }))
  const [next, actions] = transition(projectMachine, withFlag, command({ type: 'feature.archive', names: ['nope'] }))
  t.equal(next.value, 'active')
  t.equal(next.context.state, withFlag.context.state, 'the very same state object')
  const decisions = emitted(actions)
  t.equal(decisions.length, 1)
  t.equal(decisions[0].type === 'rejected' && decisions[0].error.kind, 'NotFoundError')
})

t.test('active: a command that decides nothing emits decided with no events', async (t) => {
  const [snapshot] = active()
  const [next, actions] = transition(projectMachine, snapshot, command({ type: 'feature.delete', names: [] }))
  t.same(emitted(actions), [{ type: 'decided', events: [] }])
  t.equal(next.value, 'active')
})

t.test('active: project.create is rejected as a 409', async (t) => {
  const [snapshot] = active()
  const [next, actions] = transition(projectMachine, snapshot, create('web'))
  t.equal(next.value, 'active')
  t.equal(next.context.state, snapshot.context.state)
  const [decision] = emitted(actions)
  t.equal(decision.type === 'rejected' && decision.error.kind, 'NameExistsError')
  t.equal(decision.type === 'rejected' && decision.error.message, 'A project with this id already exists.')
})

t.test('active → deleted: project.delete empties the context and the machine is done', async (t) => {
  const [snapshot] = active()
  const [next, actions] = transition(projectMachine, snapshot, command({ type: 'project.delete' }))
  t.equal(next.value, 'deleted')
  t.equal(next.status, 'done')
  t.equal(next.context.state, undefined)
  const [decision] = emitted(actions)
  t.same(decision.type === 'decided' && decision.events.map((e) => e.type), ['project-deleted'])
})

t.test('active: deleting the default project is refused and the machine stays active', async (t) => {
  const [absent] = initialTransition(projectMachine, { state: undefined })
  const [snapshot] = transition(projectMachine, absent, create('default'))
  const [next, actions] = transition(projectMachine, snapshot, command({ type: 'project.delete' }))
  t.equal(next.value, 'active')
  t.equal(next.context.state, snapshot.context.state)
  t.equal(emitted(actions)[0].type, 'rejected')
})

t.test('deleted: the final state takes no more commands', async (t) => {
  const [snapshot] = active()
  const [deleted] = transition(projectMachine, snapshot, command({ type: 'project.delete' }))
  for (const input of [create('web'), command({ type: 'feature.create', input: featureInput({ name: 'x' }) })]) {
    const [next, actions] = transition(projectMachine, deleted, input)
    t.equal(next.value, 'deleted')
    t.same(emitted(actions), [], `${input.type} emits nothing (dispatch answers 404)`)
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
    const [next, actions] = transition(projectMachine, snapshot, full)
    const [decision] = emitted(actions)
    t.equal(decision.type, 'decided', input.type)
    if (decision.type === 'decided') s.apply('web', decision.events)
    snapshot = next
  }
  t.same(snapshot.context.state, s.project('web'))
})

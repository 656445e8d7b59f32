import { hashTokenSecret } from '../../src/domain/api-tokens.js'
import t from 'tap'
import { initialTransition, transition, type AnyActorRef, type SnapshotFrom } from 'xstate'
import { instanceMachine, noProjects } from '../../src/actors/instance.machine.js'
import { inGlobalOrder, projectsHeldBy } from '../../src/actors/plans.js'
import type { CommandMeta } from '../../src/domain/events.js'
import type { InstanceCommand } from '../../src/domain/instance.js'
import { builtInFeatureTypes } from '../../src/domain/built-in-types.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import type { ProjectState } from '../../src/domain/project-state.js'
import { Scenario, environment } from '../domain/fixtures/scenario.js'
import { appendDone, command, reportsOf, step } from '../helpers/machines.js'

// A command is decided, appended and, once the append is done, committed; its decision is what it was
// answered (test/helpers/machines.ts).
const send = (snapshot: SnapshotFrom<typeof instanceMachine>, input: InstanceCommand) => {
  const { next, decisions } = step(instanceMachine, snapshot, command(input))
  return [next, decisions] as const
}

const meta: CommandMeta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'admin', userId: 1 } }
const world = { projectExists: () => true }

t.test('the instance machine decides, evolves and emits', async (t) => {
  const initial = emptyInstance()
  const [start, startActions] = initialTransition(instanceMachine, { state: initial })
  t.equal(start.context.state, initial)
  t.same(reportsOf(startActions), [])

  const [withEnv, decisions] = send(start, { type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta })
  const [decision] = decisions
  t.equal(decision.type, 'decided')
  t.same(decision.type === 'decided' && decision.events.map((e) => e.type), ['environment-created'])
  t.ok(withEnv.context.state.environments.has('development'))
  t.notOk(start.context.state.environments.has('development'), 'the earlier snapshot is untouched')

  const [again, againDecisions] = send(withEnv, { type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta })
  const [rejection] = againDecisions
  t.equal(rejection.type === 'rejected' && rejection.error.kind, 'NameExistsError')
  t.equal(again.context.state, withEnv.context.state, 'a rejection keeps the very same state')

  const [withToken, tokenDecisions] = send(withEnv, {
    type: 'apiToken.create',
    input: { tokenName: 'sdk', type: 'backend' },
    random: 'f'.repeat(56),
    meta,
  })
  const [created] = tokenDecisions
  t.same(created.type === 'decided' && created.events.map((e) => e.type), ['api-token-created'])
  t.ok(withToken.context.state.apiTokens.has(hashTokenSecret(`*:development.${'f'.repeat(56)}`)), 'stored under the SHA-256 of its secret')

  const [same, noopDecisions] = send(withToken, { type: 'apiToken.delete', secretHash: 'unknown', meta })
  t.same(noopDecisions, [{ type: 'decided', events: [] }], 'a no-op is decided with no events')
  t.equal(same.context.state, withToken.context.state)
})

// A command that spans projects: the instance holds the projects (in the global order), decides
// everything against the held states, appends it in one append and releases them.

const projectEnv = () => {
  const scenario = new Scenario([environment('development'), environment('production', 'production')])
  scenario.createProject('web')
  scenario.createProject('mobile')
  scenario.createFeature('web', 'checkout')
  return { scenario, env: { project: { world: () => scenario.world(), tags: () => ({ tagTypeExists: () => true }), instanceWorld: () => noProjects }, otherProjects: () => [] } }
}
const stubRef = (id: string) => ({ id, send: () => undefined }) as unknown as AnyActorRef
const actionsOf = (actions: readonly { type: string; params?: unknown }[], type: string) =>
  actions.filter((a) => a.type === type).map((a) => a.params as { to: { id: string }; event: { type: string; committed?: boolean } })

t.test('moving a flag: the instance coordinates both projects, one append, then releases them', async (t) => {
  const { scenario, env } = projectEnv()
  const [idle] = initialTransition(instanceMachine, { state: emptyInstance(), env })
  const plan = { kind: 'move' as const, sourceId: 'web', targetId: 'mobile', featureName: 'checkout', meta }
  const [acquiring] = transition(instanceMachine, idle, { type: 'plan', plan, ticket: 4 })
  t.same(acquiring.value, { writer: { coordinating: 'acquiring' }, staleness: 'off' })
  t.ok(acquiring.children.acquire, 'holding the projects is an invoked actor')

  const participants = [
    { key: 'project:mobile', ref: stubRef('mobile'), state: scenario.project('mobile') },
    { key: 'project:web', ref: stubRef('web'), state: scenario.project('web') },
  ]
  const [committing, actions] = transition(instanceMachine, acquiring, { type: 'xstate.done.actor.acquire', actorId: 'acquire', output: participants } as never)
  t.same(committing.value, { writer: { coordinating: 'committing' }, staleness: 'off' })
  t.same(committing.context.inFlight?.events.map((e) => [e.type, e.project]), [['internal:feature-moved-out', 'web'], ['feature-project-change', 'mobile']], 'the source first, then the target, in one append')
  t.same(actionsOf(actions, 'xstate.sendTo').map((a) => [a.to.id, a.event.type]), [['mobile', 'lend'], ['web', 'lend']], 'each held project is lent its decision')

  const [done, doneActions] = transition(instanceMachine, committing, appendDone(committing.context.inFlight!.events, 10) as never)
  t.same(done.value, { writer: 'idle', staleness: 'off' })
  t.same(actionsOf(doneActions, 'xstate.sendTo').map((a) => [a.to.id, a.event.type, a.event.committed]), [['mobile', 'release', true], ['web', 'release', true]])
  t.match(reportsOf(doneActions), [{ type: 'committed', records: [{ id: 10 }, { id: 11 }], answers: [{ ticket: 4, from: 0, count: 2 }] }])
})

t.test('a refused plan releases what it held and changes nothing', async (t) => {
  const { scenario, env } = projectEnv()
  const [idle] = initialTransition(instanceMachine, { state: emptyInstance(), env })
  const plan = { kind: 'move' as const, sourceId: 'web', targetId: 'mobile', featureName: 'nope', meta }
  const [acquiring] = transition(instanceMachine, idle, { type: 'plan', plan, ticket: 4 })
  const participants = [
    { key: 'project:mobile', ref: stubRef('mobile'), state: scenario.project('mobile') },
    { key: 'project:web', ref: stubRef('web'), state: scenario.project('web') },
  ]
  const [next, actions] = transition(instanceMachine, acquiring, { type: 'xstate.done.actor.acquire', actorId: 'acquire', output: participants } as never)
  t.same(next.value, { writer: 'idle', staleness: 'off' })
  t.same(actionsOf(actions, 'xstate.sendTo').map((a) => [a.to.id, a.event.type, a.event.committed]), [['mobile', 'release', false], ['web', 'release', false]])
  t.match(reportsOf(actions), [{ type: 'refused', ticket: 4, error: { kind: 'NotFoundError' } }])
})

t.test('a plan that waits for a project does not decide before it holds it: global order', async (t) => {
  t.same(inGlobalOrder(['project:web', 'instance', 'project:a', 'project:web']), ['instance', 'project:a', 'project:web'])
  t.same(projectsHeldBy({ kind: 'move', sourceId: 'z', targetId: 'a', featureName: 'f', meta }), ['project:a', 'project:z'], 'a move from z to a and one from a to z hold a first')
})

t.test('the potentially-stale check is a delayed transition of the instance: it tells the projects with flags past their lifetime', async (t) => {
  const { scenario, env } = projectEnv()
  const told: [string, string][] = []
  const staleness = {
    everyMs: 50,
    clock: () => new Date('2030-01-01T00:00:00.000Z'),
    projects: () => [['web', scenario.project('web')], ['mobile', scenario.project('mobile')]] as [string, ProjectState][],
    tell: (projectId: string, command: { type: string }) => told.push([projectId, command.type]),
  }
  const [quiet, quietActions] = initialTransition(instanceMachine, { state: emptyInstance(), env })
  t.same(quiet.value, { writer: 'idle', staleness: 'off' }, 'no timer without the job')
  t.notOk(quietActions.some((a) => a.type === 'xstate.raise'))

  const [started, actions] = initialTransition(instanceMachine, { state: { ...emptyInstance(), featureTypes: new Map(builtInFeatureTypes.map((type) => [type.id, type])) }, env: { ...env, staleness } })
  t.same(started.value, { writer: 'idle', staleness: 'waiting' })
  const timer = actions.find((a) => a.type === 'xstate.raise' && (a.params as { delay?: number }).delay === 50)
  t.ok(timer, 'a timer of POTENTIALLY_STALE_CHECK_MS is armed')
  const [, fired] = transition(instanceMachine, started, (timer!.params as { event: never }).event)
  const check = fired.find((a) => a.type === 'checkStaleness') as unknown as { exec: (info: unknown, params: unknown) => void; info: unknown; params: unknown }
  check.exec(check.info, check.params)
  t.same(told, [['web', 'feature.markPotentiallyStale']], 'only the project whose flag is past its lifetime (a release flag, years later)')
  t.ok(fired.some((a) => a.type === 'xstate.raise' && (a.params as { delay?: number }).delay === 50), 'and the timer is armed again')
})

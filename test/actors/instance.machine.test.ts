import { hashTokenSecret } from '../../src/domain/api-tokens.js'
import t from 'tap'
import { initialTransition, transition } from 'xstate'
import type { Decision } from '../../src/actors/decision.js'
import { instanceMachine } from '../../src/actors/instance.machine.js'
import type { CommandMeta } from '../../src/domain/events.js'
import { emptyInstance } from '../../src/domain/instance-state.js'

const emitted = (actions: readonly { type: string; params?: unknown }[]): Decision[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: Decision }).event)

const meta: CommandMeta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'admin', userId: 1 } }
const world = { projectExists: () => true }

t.test('the instance machine decides, evolves and emits', async (t) => {
  const initial = emptyInstance()
  const [start, startActions] = initialTransition(instanceMachine, { state: initial })
  t.equal(start.context.state, initial)
  t.same(emitted(startActions), [])

  const [withEnv, actions] = transition(instanceMachine, start, { type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta })
  const [decision] = emitted(actions)
  t.equal(decision.type, 'decided')
  t.same(decision.type === 'decided' && decision.events.map((e) => e.type), ['environment-created'])
  t.ok(withEnv.context.state.environments.has('development'))
  t.notOk(start.context.state.environments.has('development'), 'the earlier snapshot is untouched')

  const [again, againActions] = transition(instanceMachine, withEnv, { type: 'environment.create', input: { name: 'development', type: 'development', enabled: true }, meta })
  const [rejection] = emitted(againActions)
  t.equal(rejection.type === 'rejected' && rejection.error.kind, 'NameExistsError')
  t.equal(again.context.state, withEnv.context.state, 'a rejection keeps the very same state')

  const [withToken, tokenActions] = transition(instanceMachine, withEnv, {
    type: 'apiToken.create',
    input: { tokenName: 'sdk', type: 'backend' },
    random: 'f'.repeat(56),
    world,
    meta,
  })
  const [created] = emitted(tokenActions)
  t.same(created.type === 'decided' && created.events.map((e) => e.type), ['api-token-created'])
  t.ok(withToken.context.state.apiTokens.has(hashTokenSecret(`*:development.${'f'.repeat(56)}`)), 'stored under the SHA-256 of its secret')

  const [same, noopActions] = transition(instanceMachine, withToken, { type: 'apiToken.delete', secretHash: 'unknown', meta })
  t.same(emitted(noopActions), [{ type: 'decided', events: [] }], 'a no-op is decided with no events')
  t.equal(same.context.state, withToken.context.state)
})

import t from 'tap'
import { applyRecord, type World } from '../../src/actors/recovery.js'
import type { CommandMeta } from '../../src/domain/events.js'
import { decideInstance, evolveInstance } from '../../src/domain/instance.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { valueOf } from './fixtures/scenario.js'

const meta: CommandMeta = { now: '2026-01-02T03:04:05.000Z', actor: { name: 'migration', userId: -1337 } }
const world = { projectExists: () => true, usedInProjects: () => [] }

t.test('recording a migration is one setting-created event naming the source, its version and the time, and changes no state', async (t) => {
  const state = emptyInstance()
  const events = valueOf(decideInstance(state, { type: 'migration.record', from: 'https://unleash.example.com', version: '8.2.0', meta }, world))
  t.same(
    events.map((e) => [e.type, e.data]),
    [['setting-created', { id: 'migrated-from', value: { url: 'https://unleash.example.com', version: '8.2.0', at: meta.now } }]],
  )
  t.equal(events.reduce(evolveInstance, state), state, 'the instance state is the same object')
})

t.test('replaying the record leaves the world as it was', async (t) => {
  const events = valueOf(decideInstance(emptyInstance(), { type: 'migration.record', from: 'u', version: null, meta }, world))
  const replayed: World = { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  const before = replayed.instance
  for (const [i, event] of events.entries()) applyRecord(replayed, { ...event, id: i + 1 })
  t.equal(replayed.instance, before, 'the instance is untouched')
  t.equal(replayed.projects.size, 0, 'no project appears')
})

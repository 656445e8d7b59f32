import t from 'tap'
import * as v from 'valibot'
import { recordOfType, type CommandMeta } from '../../src/domain/events.js'
import { evolveInstance } from '../../src/domain/instance.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { decideCreateSegment, decideUpdateSegment, type SegmentWorld } from '../../src/domain/segments.js'
import { upsertSegmentSchema } from '../../src/schemas/segments.js'
import { typesOf, valueOf } from './fixtures/scenario.js'

const meta: CommandMeta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'tester', userId: 7 } }
const world: SegmentWorld = { projectExists: () => true, usedInProjects: () => [] }
const input = (body: v.InferInput<typeof upsertSegmentSchema>) => v.parse(upsertSegmentSchema, body)

// Written from what Unleash 8.2 does side by side: PUT {"name", "constraints": []} keeps the description.
t.test('a PUT keeps a description it leaves out, and clears one it sets to null', async (t) => {
  const created = valueOf(decideCreateSegment(emptyInstance(), { type: 'segment.create', input: input({ name: 'beta', description: 'D', project: 'web', constraints: [] }), world, meta }))
  const state = created.reduce(evolveInstance, emptyInstance())
  const id = recordOfType(created, 'segment-created').data.id
  const kept = valueOf(decideUpdateSegment(state, { type: 'segment.update', id, input: input({ name: 'beta', constraints: [] }), world, meta }))
  t.same(typesOf(kept), ['segment-updated'], 'the project left out is none: a change')
  t.match(kept[0].data, { description: 'D', project: null })
  const cleared = valueOf(decideUpdateSegment(state, { type: 'segment.update', id, input: input({ name: 'beta', description: null, project: 'web', constraints: [] }), world, meta }))
  t.equal(recordOfType(cleared, 'segment-updated').data.description, null)
})

// A migration copies segments with their ids, since strategies and SDKs name segments by id.
t.test('a create with a given id keeps it, refuses one in use, and the next create counts on from the highest', async (t) => {
  const create = (state: ReturnType<typeof emptyInstance>, name: string, id?: number) => decideCreateSegment(state, { type: 'segment.create', input: input({ name, constraints: [] }), id, world, meta })
  const seven = valueOf(create(emptyInstance(), 'seven', 7))
  t.equal(recordOfType(seven, 'segment-created').data.id, 7)
  const state = seven.reduce(evolveInstance, emptyInstance())
  t.same([...state.segments.keys()], [7])
  const taken = create(state, 'again', 7)
  t.equal(taken.ok, false, 'an id in use is refused')
  t.match(!taken.ok && taken.error, { kind: 'NameExistsError' })
  const zero = create(state, 'zero', 0)
  t.equal(zero.ok, false, 'an id below 1 is refused')
  t.equal(recordOfType(valueOf(create(state, 'next')), 'segment-created').data.id, 8)
})

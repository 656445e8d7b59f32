import t from 'tap'
import * as v from 'valibot'
import { decideCreateContextField, decideDeleteContextField, decideUpdateContextField } from '../../src/domain/context-fields.js'
import { evolveInstance } from '../../src/domain/instance.js'
import { emptyInstance, type InstanceState } from '../../src/domain/instance-state.js'
import { recordOfType, type CommandMeta } from '../../src/domain/events.js'
import { upsertContextFieldSchema } from '../../src/schemas/context-fields.js'
import { assertError, errorOf, typesOf, valueOf } from './fixtures/scenario.js'

const meta: CommandMeta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'tester', userId: 7 } }
const input = (body: v.InferInput<typeof upsertContextFieldSchema>) => v.parse(upsertContextFieldSchema, body)

const withTier = (): InstanceState => {
  const created = valueOf(
    decideCreateContextField(emptyInstance(), input({ name: 'tier', description: 'plan', stickiness: true, sortOrder: 4, legalValues: [{ value: '1' }, { value: '2' }] }), meta),
  )
  return created.reduce(evolveInstance, emptyInstance())
}

// Written from what Unleash 8.2 does side by side: PUT {"name"} keeps the description, sets stickiness
// false, legal values none and the sort order 0.
t.test('a PUT replaces the field, except a description it leaves out', async (t) => {
  const state = withTier()
  const events = valueOf(decideUpdateContextField(state, 'tier', input({ name: 'tier' }), meta))
  t.same(typesOf(events), ['context-field-updated'])
  t.match(events[0].data, { name: 'tier', description: 'plan', stickiness: false, sortOrder: 0, legalValues: [] })
  t.match(events[0].preData, { stickiness: true, sortOrder: 4, legalValues: [{ value: '1' }, { value: '2' }] })
  const next = events.reduce(evolveInstance, state)
  t.same(valueOf(decideUpdateContextField(next, 'tier', input({ name: 'tier' }), meta)), [], 'the same PUT again changes nothing')
  const cleared = valueOf(decideUpdateContextField(next, 'tier', input({ name: 'tier', description: null }), meta))
  t.equal(recordOfType(cleared, 'context-field-updated').data.description, null, 'a null description clears it')
})

t.test('a field used by a strategy cannot be deleted (409, as Unleash 8.2)', async (t) => {
  const state = withTier()
  assertError(t, errorOf(decideDeleteContextField(state, 'tier', true, meta)), 'ConflictError', 409, 'This context field is in use by existing flags. To delete it, first remove its usage from all flags.')
  t.same(typesOf(valueOf(decideDeleteContextField(state, 'tier', false, meta))), ['context-field-deleted'])
})

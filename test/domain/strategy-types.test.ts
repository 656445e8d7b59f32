import t from 'tap'
import * as v from 'valibot'
import type { CommandMeta } from '../../src/domain/events.js'
import { evolveInstance } from '../../src/domain/instance.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { decideCreateStrategyType, decideUpdateStrategyType } from '../../src/domain/strategy-types.js'
import { updateStrategyTypeSchema, upsertStrategyTypeSchema } from '../../src/schemas/strategy-types.js'
import { valueOf } from './fixtures/scenario.js'

const meta: CommandMeta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'tester', userId: 7 } }

// Written from what Unleash 8.2 does side by side: a PUT without parameters is a 400; one with them
// replaces the parameters and keeps a title and description it leaves out.
t.test('a PUT replaces the parameters and keeps the title and description it leaves out', async (t) => {
  const create = v.parse(upsertStrategyTypeSchema, { name: 'custom', title: 'T', description: 'D', parameters: [{ name: 'p', type: 'string' }] })
  const state = valueOf(decideCreateStrategyType(emptyInstance(), create, meta)).reduce(evolveInstance, emptyInstance())
  t.notOk(v.safeParse(updateStrategyTypeSchema, { name: 'custom' }).success, 'parameters are required')
  const events = valueOf(decideUpdateStrategyType(state, 'custom', v.parse(updateStrategyTypeSchema, { name: 'custom', parameters: [] }), meta))
  t.match(events[0].data, { title: 'T', description: 'D', parameters: [] })
})

import t from 'tap'
import { ofrepContextFields, ofrepEvaluation, type OfrepFlagFacts } from '../../src/read/ofrep.js'
import type { EvalResult } from '../../src/eval/types.js'

const facts = (over: Partial<OfrepFlagFacts> = {}): OfrepFlagFacts => ({ project: 'web', enabledInEnvironment: true, variantCount: 0, impressionData: false, ...over })
const noVariant = { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }
const result = (enabled: boolean, variant: EvalResult['variant'] = { ...noVariant, feature_enabled: enabled, featureEnabled: enabled }): EvalResult => ({ enabled, variant, impressionData: false })
const withPayload = (type: string, value: string): EvalResult['variant'] => ({ name: 'blue', enabled: true, payload: { type, value }, feature_enabled: true, featureEnabled: true })

t.test('a flag without variants is a boolean, with DISABLED, DEFAULT or TARGETING_MATCH', async (t) => {
  t.same(ofrepEvaluation('f', result(true), facts()), { key: 'f', value: true, reason: 'TARGETING_MATCH', metadata: { project: 'web' } })
  t.same(ofrepEvaluation('f', result(false), facts()), { key: 'f', value: false, reason: 'DEFAULT', metadata: { project: 'web' } }, 'on, no strategy matched')
  t.same(ofrepEvaluation('f', result(false), facts({ enabledInEnvironment: false })), { key: 'f', value: false, reason: 'DISABLED', metadata: { project: 'web' } }, 'off in the environment')
  t.same(ofrepEvaluation('f', result(true), facts({ impressionData: true })).metadata, { project: 'web', impressionData: true }, 'impression data named')
})

t.test("a variant's payload is typed by its payload type; no payload gives the variant's name", async (t) => {
  const two = facts({ variantCount: 2 })
  t.same(ofrepEvaluation('f', result(true, withPayload('string', 'hi')), two), { key: 'f', value: 'hi', variant: 'blue', reason: 'SPLIT', metadata: { project: 'web' } })
  t.equal(ofrepEvaluation('f', result(true, withPayload('number', '42.5')), two).value, 42.5)
  t.equal(ofrepEvaluation('f', result(true, withPayload('number', 'x')), two).value, 'x', 'a number payload that is no number stays a string')
  t.same(ofrepEvaluation('f', result(true, withPayload('json', '{"a":[1,2]}')), two).value, { a: [1, 2] })
  t.equal(ofrepEvaluation('f', result(true, withPayload('json', '{broken')), two).value, '{broken', 'broken JSON stays a string')
  t.equal(ofrepEvaluation('f', result(true, withPayload('csv', 'a,b')), two).value, 'a,b')
  const unnamed = { name: 'green', enabled: true, feature_enabled: true, featureEnabled: true }
  t.same(ofrepEvaluation('f', result(true, unnamed), facts({ variantCount: 1 })), { key: 'f', value: 'green', variant: 'green', reason: 'TARGETING_MATCH', metadata: { project: 'web' } }, 'one variant: no split')
})

t.test('a flag with variants that selects none leaves the value to the code default', async (t) => {
  t.same(ofrepEvaluation('f', result(false), facts({ variantCount: 2, enabledInEnvironment: false })), { key: 'f', reason: 'DISABLED', metadata: { project: 'web' } })
  t.same(ofrepEvaluation('f', result(false), facts({ variantCount: 2 })), { key: 'f', reason: 'DEFAULT', metadata: { project: 'web' } })
  t.same(ofrepEvaluation('f', result(true), facts({ variantCount: 2 })), { key: 'f', reason: 'DEFAULT', metadata: { project: 'web' } }, 'enabled, but no variant selected')
})

t.test('the targetingKey is the userId unless the context gives one; objects other than properties are left out', async (t) => {
  t.same(ofrepContextFields({ targetingKey: 'u1', plan: 'pro', seats: 3, beta: true }), { plan: 'pro', seats: 3, beta: true, userId: 'u1' })
  t.same(ofrepContextFields({ targetingKey: 'u1', userId: 'u2' }), { userId: 'u2' })
  t.same(ofrepContextFields({ nested: { a: 1 }, list: [1], properties: { tier: 'gold' }, nothing: null }), { properties: { tier: 'gold' } })
})

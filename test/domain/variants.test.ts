import t from 'tap'
import * as v from 'valibot'
import { normaliseVariants } from '../../src/domain/variants.js'
import { featureVariantSchema } from '../../src/schemas/shared.js'
import { Scenario, errorOf, featureVariants, strategyVariants, typesOf, valueOf } from './fixtures/scenario.js'
import { recordOfType } from '../../src/domain/events.js'

const weights = (variants: { name: string; weight: number; weightType?: string }[]) => variants.map((x) => [x.name, x.weight, x.weightType])

const rejection = (message: string) => ({
  kind: 'BadDataError',
  message: `Request validation failed: your request body or params contain invalid data: ${message}`,
  details: [{ message }],
})

const errorShape = (error: { kind: string; message: string; details?: unknown }) => ({ kind: error.kind, message: error.message, details: error.details })

// SEMANTICS 3.4.
t.test('normalisation', async (t) => {
  t.test('an empty list clears', async (t) => {
    t.same(valueOf(normaliseVariants([])), [])
  })

  t.test('one variable variant gets 1000', async (t) => {
    t.same(weights(valueOf(normaliseVariants(featureVariants([{ name: 'a', weight: 1 }])))), [['a', 1000, 'variable']])
  })

  t.test('the remainder goes to the first variable variants in input order, the result is sorted by name', async (t) => {
    const result = valueOf(
      normaliseVariants(
        featureVariants([
          { name: 'c', weight: 0 },
          { name: 'a', weight: 0 },
          { name: 'b', weight: 0 },
        ]),
      ),
    )
    t.same(weights(result), [
      ['a', 333, 'variable'],
      ['b', 333, 'variable'],
      ['c', 334, 'variable'],
    ])
  })

  t.test('a remainder of two goes to the first two in input order', async (t) => {
    const result = valueOf(
      normaliseVariants(
        featureVariants([
          { name: 'z', weight: 5 },
          { name: 'y', weight: 5 },
          { name: 'fixed', weight: 101, weightType: 'fix' },
          { name: 'x', weight: 5 },
        ]),
      ),
    )
    // (1000 - 101) / 3 = 299 remainder 2: z and y get one more.
    t.same(weights(result), [
      ['fixed', 101, 'fix'],
      ['x', 299, 'variable'],
      ['y', 300, 'variable'],
      ['z', 300, 'variable'],
    ])
    t.equal(result.reduce((sum, x) => sum + x.weight, 0), 1000)
  })

  t.test('fix weights are kept and the rest is shared', async (t) => {
    const result = valueOf(
      normaliseVariants(
        featureVariants([
          { name: 'blue', weight: 200, weightType: 'fix' },
          { name: 'red', weight: 0 },
          { name: 'green', weight: 999 },
        ]),
      ),
    )
    t.same(weights(result), [
      ['blue', 200, 'fix'],
      ['green', 400, 'variable'],
      ['red', 400, 'variable'],
    ])
  })

  t.test('sorting uses localeCompare', async (t) => {
    const names = valueOf(normaliseVariants(featureVariants(['b', 'B', 'a', 'A', '_x', '10', '9'].map((name) => ({ name, weight: 0 }))))).map((x) => x.name)
    t.same(names, [...names].sort((a, b) => a.localeCompare(b)))
  })

  t.test('stickiness, payload and overrides are kept', async (t) => {
    const [variant] = valueOf(
      normaliseVariants(
        featureVariants([{ name: 'a', weight: 0, stickiness: 'userId', payload: { type: 'json', value: '{"a":1}' }, overrides: [{ contextName: 'userId', values: ['u1'] }] }]),
      ),
    )
    t.same(variant, { name: 'a', weight: 1000, weightType: 'variable', stickiness: 'userId', payload: { type: 'json', value: '{"a":1}' }, overrides: [{ contextName: 'userId', values: ['u1'] }] })
  })

  t.test('defaults: weightType variable, stickiness default', async (t) => {
    const [variant] = featureVariants([{ name: 'a', weight: 10 }])
    t.equal(variant.weightType, 'variable')
    t.equal(variant.stickiness, 'default')
  })

  t.test('the input is not changed', async (t) => {
    const input = featureVariants([
      { name: 'b', weight: 7 },
      { name: 'a', weight: 3 },
    ])
    const copy = structuredClone(input)
    normaliseVariants(input)
    t.same(input, copy)
  })
})

t.test('refusals', async (t) => {
  t.test('no variable variant', async (t) => {
    const error = errorOf(normaliseVariants(featureVariants([{ name: 'a', weight: 500, weightType: 'fix' }])))
    t.same(errorShape(error), rejection('There must be at least one "variable" variant'))
  })

  t.test('fix weights summing to more than 1000', async (t) => {
    const error = errorOf(
      normaliseVariants(
        featureVariants([
          { name: 'a', weight: 600, weightType: 'fix' },
          { name: 'b', weight: 500, weightType: 'fix' },
          { name: 'c', weight: 0 },
        ]),
      ),
    )
    t.same(errorShape(error), rejection('The traffic distribution total must equal 100%'))
  })

  t.test('fix weights summing to exactly 1000 leave nothing for the variable ones', async (t) => {
    const error = errorOf(
      normaliseVariants(
        featureVariants([
          { name: 'a', weight: 1000, weightType: 'fix' },
          { name: 'c', weight: 0 },
        ]),
      ),
    )
    t.same(errorShape(error), rejection('The traffic distribution total must equal 100%'))
  })

  t.test('duplicate names', async (t) => {
    const error = errorOf(
      normaliseVariants(
        featureVariants([
          { name: 'a', weight: 0 },
          { name: 'a', weight: 0 },
        ]),
      ),
    )
    t.equal(error.kind, 'BadDataError')
  })

  t.test('a json payload that is not JSON', async (t) => {
    const error = errorOf(normaliseVariants(featureVariants([{ name: 'a', weight: 0, payload: { type: 'json', value: '{nope' } }])))
    t.same(errorShape(error), rejection("'value' must be a valid json string when 'type' is json"))
    t.ok(normaliseVariants(featureVariants([{ name: 'a', weight: 0, payload: { type: 'string', value: '{nope' } }])).ok, 'other payload types are not parsed')
  })

  t.test('weights and payload types at the edge (schema)', async (t) => {
    const parses = (input: unknown) => v.safeParse(featureVariantSchema, input).success
    t.ok(parses({ name: 'a', weight: 0 }))
    t.ok(parses({ name: 'a', weight: 1000 }))
    t.notOk(parses({ name: 'a', weight: 1001 }), 'weight above 1000')
    t.notOk(parses({ name: 'a', weight: -1 }), 'negative weight')
    t.notOk(parses({ name: 'a', weight: 1.5 }), 'weight not an integer')
    t.notOk(parses({ name: 'a' }), 'weight required')
    t.notOk(parses({ name: 'a b', weight: 1 }), 'name not URL friendly')
    t.notOk(parses({ name: 'a', weight: 1, payload: { type: 'xml', value: '<a/>' } }), 'payload type outside json|csv|string|number')
    t.notOk(parses({ name: 'a', weight: 1, weightType: 'fixed' }), 'weightType outside variable|fix')
  })
})

t.test('environment variants', async (t) => {
  const withFlag = () => {
    const s = new Scenario()
    s.createProject('web')
    s.createFeature('web', 'checkout')
    return s
  }

  t.test('setting variants stores the normalised list per environment with new and old', async (t) => {
    const s = withFlag()
    const variants = featureVariants([
      { name: 'b', weight: 1 },
      { name: 'a', weight: 1 },
    ])
    const events = s.ok('web', { type: 'variants.set', feature: 'checkout', environments: ['development', 'production'], variants })
    t.same(typesOf(events), ['feature-environment-variants-updated', 'feature-environment-variants-updated'])
    t.same(events.map((e) => e.environment), ['development', 'production'])
    t.same(weights(recordOfType(events, 'feature-environment-variants-updated').data.variants), [
      ['a', 500, 'variable'],
      ['b', 500, 'variable'],
    ])
    t.same(events[0].preData, { variants: [] })
    t.same(weights(s.feature('web', 'checkout').environments.get('production')?.variants ?? []), [
      ['a', 500, 'variable'],
      ['b', 500, 'variable'],
    ])
    t.same(s.ok('web', { type: 'variants.set', feature: 'checkout', environments: ['development'], variants }), [], 'the same list again emits nothing')
  })

  t.test('no environments is a 400', async (t) => {
    const s = withFlag()
    const error = errorOf(s.decide('web', { type: 'variants.set', feature: 'checkout', environments: [], variants: [] }))
    t.equal(error.kind, 'BadDataError')
    t.ok(error.message.endsWith('No environments provided'))
  })

  t.test('a refused list changes nothing', async (t) => {
    const s = withFlag()
    t.equal(s.send('web', { type: 'variants.set', feature: 'checkout', environments: ['development'], variants: featureVariants([{ name: 'a', weight: 100, weightType: 'fix' }]) }).ok, false)
    t.same(s.feature('web', 'checkout').environments.get('development')?.variants, [])
  })

  t.test('strategy variants go through the same rules', async (t) => {
    const s = withFlag()
    const error = errorOf(
      s.decide('web', {
        type: 'strategy.add',
        feature: 'checkout',
        environment: 'development',
        id: 'x',
        input: { name: 'flexibleRollout', variants: strategyVariants([{ name: 'a', weight: 100, weightType: 'fix', stickiness: 'default' }]) },
      }),
    )
    t.same(errorShape(error), rejection('There must be at least one "variable" variant'))
  })
})

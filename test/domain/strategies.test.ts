import t from 'tap'
import * as v from 'valibot'
import { recordOfType } from '../../src/domain/events.js'
import { orderedStrategies } from '../../src/domain/strategies.js'
import { constraintSchema, createFeatureStrategySchema } from '../../src/schemas/shared.js'
import { Scenario, assertBadData, assertError, errorOf, strategyInput, strategyUpdate, typesOf, valueOf } from './fixtures/scenario.js'

const withFlag = (projectInput: { defaultStickiness?: string } = {}) => {
  const s = new Scenario()
  s.createProject('web', projectInput)
  s.createFeature('web', 'checkout')
  return s
}

const add = (s: Scenario, input: v.InferInput<typeof createFeatureStrategySchema>, env = 'development', id = s.nextStrategyId()) =>
  s.decide('web', { type: 'strategy.add', feature: 'checkout', environment: env, input: strategyInput(input), id })
const added = (s: Scenario, input: v.InferInput<typeof createFeatureStrategySchema>) => recordOfType(valueOf(add(s, input)), 'feature-strategy-add')

t.test('adding a strategy', async (t) => {
  t.test('emits feature-strategy-add with the saved strategy', async (t) => {
    const s = withFlag()
    const events = valueOf(add(s, { name: 'default', title: 'everyone' }, 'development', 'st-1'))
    t.same(typesOf(events), ['feature-strategy-add'])
    t.match(events[0], { project: 'web', environment: 'development', featureName: 'checkout' })
    t.same(events[0].data, {
      id: 'st-1',
      name: 'default',
      title: 'everyone',
      disabled: false,
      sortOrder: 0,
      constraints: [],
      parameters: {},
      variants: [],
      segments: [],
    })
    s.apply('web', events)
    t.same(s.strategies('web', 'checkout', 'development').map((x) => x.id), ['st-1'])
    t.equal(s.feature('web', 'checkout').environments.get('development')?.enabled, false, 'adding a strategy does not switch the environment on')
  })

  t.test('flexibleRollout gets rollout 100, the project stickiness and the flag name as groupId', async (t) => {
    const s = withFlag({ defaultStickiness: 'userId' })
    const event = added(s, { name: 'flexibleRollout' })
    t.same(event.data.parameters, { rollout: '100', stickiness: 'userId', groupId: 'checkout' })
  })

  t.test('flexibleRollout: empty values get the defaults too, given ones are kept', async (t) => {
    const s = withFlag()
    t.same(added(s, { name: 'flexibleRollout', parameters: { rollout: '', stickiness: '', groupId: '' } }).data.parameters, {
      rollout: '100',
      stickiness: 'default',
      groupId: 'checkout',
    })
    t.same(added(s, { name: 'flexibleRollout', parameters: { rollout: 25, stickiness: 'sessionId', groupId: 'g' } }).data.parameters, {
      rollout: '25',
      stickiness: 'sessionId',
      groupId: 'g',
    })
  })

  t.test('parameters are stored as strings', async (t) => {
    const s = withFlag()
    const event = added(s, { name: 'userWithId', parameters: { userIds: 'a,b', n: 5, on: true, off: false, nothing: null } })
    t.same(event.data.parameters, { userIds: 'a,b', n: '5', on: 'true', off: 'false', nothing: '' })
    for (const value of Object.values(event.data.parameters)) t.type(value, 'string')
  })

  t.test('other types without parameters get {}', async (t) => {
    const s = withFlag()
    t.same(added(s, { name: 'remoteAddress' }).data.parameters, {})
  })

  t.test('an unknown strategy type is a 400', async (t) => {
    const s = withFlag()
    assertBadData(t, errorOf(add(s, { name: 'fancy' })), 'Could not find strategy type with name fancy')
  })

  t.test('an environment the project lacks is a 400', async (t) => {
    const s = new Scenario()
    s.createProject('web', { environments: ['development'] })
    s.createFeature('web', 'checkout')
    assertBadData(t, errorOf(add(s, { name: 'default' }, 'production')), 'You have not added the current environment to the project')
  })

  t.test('an archived flag cannot get strategies', async (t) => {
    const s = withFlag()
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    t.equal(errorOf(add(s, { name: 'default' })).kind, 'ArchivedFeatureError')
  })

  t.test('at most 30 strategies per flag and environment', async (t) => {
    const s = withFlag()
    for (let i = 0; i < 30; i++) s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    assertError(t, errorOf(add(s, { name: 'default' })), 'ExceedsLimitError', 400, "Failed to create strategy. You can't create more than the established limit of 30.")
    t.same(typesOf(valueOf(add(s, { name: 'default' }, 'production'))), ['feature-strategy-add'], 'the limit is per environment')
  })

  t.test('sortOrder continues after the highest', async (t) => {
    const s = withFlag()
    s.addStrategy('web', 'checkout', 'development', { name: 'default', sortOrder: 5 })
    t.equal(added(s, { name: 'default' }).data.sortOrder, 6)
  })

  t.test('strategy variants are normalised', async (t) => {
    const s = withFlag()
    const event = added(
      s,
      {
        name: 'flexibleRollout',
        variants: [
          { name: 'b', weight: 0, weightType: 'variable', stickiness: 'default' },
          { name: 'a', weight: 0, weightType: 'variable', stickiness: 'default' },
          { name: 'c', weight: 0, weightType: 'variable', stickiness: 'default' },
        ],
      },
    )
    t.same(
      event.data.variants.map((x: { name: string; weight: number }) => [x.name, x.weight]),
      [
        ['a', 333],
        ['b', 334],
        ['c', 333],
      ],
    )
  })

  t.test('segments: at most 5 (schema), must exist and belong to the project', async (t) => {
    const tooMany = v.safeParse(createFeatureStrategySchema, { name: 'default', segments: [1, 2, 3, 4, 5, 6] })
    t.equal(tooMany.success ? '' : tooMany.issues[0].message, 'Strategies may not have more than 5 segments')
    t.ok(v.safeParse(createFeatureStrategySchema, { name: 'default', segments: [1, 2, 3, 4, 5] }).success)

    const s = withFlag()
    const segments = new Map([
      [1, { id: 1, name: 'beta', project: null }],
      [2, { id: 2, name: 'web-only', project: 'web' }],
      [3, { id: 3, name: 'mobile-only', project: 'mobile' }],
    ])
    s.worldOverrides = { segment: (id) => segments.get(id) }
    t.same(added(s, { name: 'default', segments: [2, 1, 2] }).data.segments, [1, 2], 'stored sorted and unique')
    t.equal(errorOf(add(s, { name: 'default', segments: [9] })).kind, 'BadDataError')
    assertBadData(t, errorOf(add(s, { name: 'default', segments: [3] })), 'The segments mobile-only with id 3 does not belong to project "web".')
  })
})

t.test('constraint limits (SEMANTICS 2.4)', async (t) => {
  const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`)
  const constraints = (n: number, valueCount = 1) => Array.from({ length: n }, () => ({ contextName: 'userId', operator: 'IN', values: values(valueCount) }))

  t.test('at most 250 values per constraint', async (t) => {
    const s = withFlag()
    t.same(typesOf(valueOf(add(s, { name: 'default', constraints: constraints(1, 250) }))), ['feature-strategy-add'])
    assertError(
      t,
      errorOf(add(s, { name: 'default', constraints: constraints(1, 251) })),
      'ExceedsLimitError',
      400,
      "Failed to create constraint values for userId. You can't create more than the established limit of 250.",
    )
  })

  t.test('at most 30 constraints per strategy', async (t) => {
    const s = withFlag()
    t.same(typesOf(valueOf(add(s, { name: 'default', constraints: constraints(30) }))), ['feature-strategy-add'])
    // The schema stops a 31st constraint at the edge; the domain holds the rule too.
    const input = { name: 'default', constraints: constraints(31).map((c) => v.parse(constraintSchema, c)) }
    const command = { type: 'strategy.add' as const, feature: 'checkout', environment: 'development', id: 'x', input }
    assertError(t, errorOf(s.decide('web', command)), 'ExceedsLimitError', 400, "Failed to create constraints. You can't create more than the established limit of 30.")
  })

  t.test('the value limit is checked only when a constraint grows', async (t) => {
    const s = withFlag()
    // A strategy saved before the limit existed (or imported) may hold more values than the limit.
    const id = s.addStrategy('web', 'checkout', 'development', { name: 'default', constraints: constraints(1, 250) })
    const stored = s.strategies('web', 'checkout', 'development')[0]
    const oversized = { ...stored, constraints: [{ ...stored.constraints[0], values: values(260) }] }
    s.apply('web', [{ type: 'feature-strategy-update', createdAt: '', createdBy: '', createdByUserId: null, project: 'web', environment: 'development', featureName: 'checkout', data: oversized, preData: stored }])
    const update = (valueCount: number, title?: string) =>
      s.decide('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id, input: strategyUpdate({ title, constraints: constraints(1, valueCount) }) })
    t.same(typesOf(valueOf(update(260, 'same size'))), ['feature-strategy-update'], 'same number of values is allowed')
    t.same(typesOf(valueOf(update(255))), ['feature-strategy-update'], 'fewer values, still over the limit, is allowed')
    t.equal(errorOf(update(261)).kind, 'ExceedsLimitError', 'more values is refused')
  })
})

t.test('constraints are validated when saving', async (t) => {
  const s = withFlag()
  assertBadData(t, errorOf(add(s, { name: 'default', constraints: [{ contextName: 'n', operator: 'NUM_GT' }] })), 'Single-value constraint operators require a non-empty value.')
  t.same(typesOf(valueOf(add(s, { name: 'default', constraints: [{ contextName: 'ip', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }] }))), ['feature-strategy-add'], 'IN_CIDR is accepted')
  t.same(typesOf(valueOf(add(s, { name: 'default', constraints: [{ contextName: 'email', operator: 'REGEX', value: '@example\\.com$', inverted: true }] }))), ['feature-strategy-add'], 'an inverted REGEX is accepted')
})

t.test('updating a strategy', async (t) => {
  t.test('emits feature-strategy-update with new data and old preData', async (t) => {
    const s = withFlag()
    const id = s.addStrategy('web', 'checkout', 'development', { name: 'flexibleRollout', parameters: { rollout: '10' } })
    const before = s.strategies('web', 'checkout', 'development')[0]
    const events = s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id, input: strategyUpdate({ parameters: { rollout: 60 } }) })
    t.same(typesOf(events), ['feature-strategy-update'])
    t.same(events[0].preData, before)
    t.same(events[0].data, { ...before, parameters: { rollout: '60', stickiness: 'default', groupId: 'checkout' } })
    t.same(s.strategies('web', 'checkout', 'development')[0].parameters.rollout, '60')
  })

  // Unleash 8.2 side by side: PUT without constraints/variants/parameters clears them; name, title,
  // disabled and segments are kept when left out.
  t.test('an update replaces constraints, variants and parameters, and keeps the rest when left out', async (t) => {
    const s = withFlag()
    const id = s.addStrategy('web', 'checkout', 'development', {
      name: 'flexibleRollout',
      title: 'beta users',
      disabled: true,
      parameters: { rollout: '50', stickiness: 'userId', groupId: 'g' },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }],
      variants: [{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }],
    })
    const events = s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id, input: strategyUpdate({ title: null }) })
    t.same(typesOf(events), ['feature-strategy-update'])
    t.match(s.strategies('web', 'checkout', 'development')[0], {
      name: 'flexibleRollout',
      title: 'beta users',
      disabled: true,
      constraints: [],
      variants: [],
      parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' },
    })
    s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id, input: strategyUpdate({ title: '' }) })
    t.equal(s.strategies('web', 'checkout', 'development')[0].title, '', 'an empty title is a title')
  })

  t.test('an exact update (a revert) writes a null title', async (t) => {
    const s = withFlag()
    const id = s.addStrategy('web', 'checkout', 'development', { name: 'default', title: 'x' })
    s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id, input: strategyUpdate({ title: null }), exact: true })
    t.equal(s.strategies('web', 'checkout', 'development')[0].title, null)
  })

  t.test('an update that changes nothing emits nothing', async (t) => {
    const s = withFlag()
    const id = s.addStrategy('web', 'checkout', 'development', { name: 'flexibleRollout' })
    t.same(s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id, input: strategyUpdate({}) }), [])
  })

  t.test('disabling the last active strategy switches the environment off, after the update', async (t) => {
    const s = withFlag()
    valueOf(s.toggle('web', 'checkout', 'development', true))
    const [strategy] = s.strategies('web', 'checkout', 'development')
    const events = s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id: strategy.id, input: strategyUpdate({ disabled: true }) })
    t.same(typesOf(events), ['feature-strategy-update', 'feature-environment-disabled'])
    t.match(events[1], { project: 'web', environment: 'development', featureName: 'checkout' })
    t.equal(s.feature('web', 'checkout').environments.get('development')?.enabled, false)
  })

  t.test('disabling one of two active strategies keeps the environment on', async (t) => {
    const s = withFlag()
    valueOf(s.toggle('web', 'checkout', 'development', true))
    const id = s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    t.same(typesOf(s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id, input: strategyUpdate({ disabled: true }) })), ['feature-strategy-update'])
    t.equal(s.feature('web', 'checkout').environments.get('development')?.enabled, true)
  })

  t.test("another flag's strategy is a 403, an unknown id a 404", async (t) => {
    const s = withFlag()
    s.createFeature('web', 'other')
    const foreign = s.addStrategy('web', 'other', 'development', { name: 'default' })
    assertError(
      t,
      errorOf(s.decide('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id: foreign, input: strategyUpdate({ title: 'x' }) })),
      'ForbiddenError',
      403,
      'You can not change the featureName for an activation strategy.',
    )
    assertError(t, errorOf(s.decide('web', { type: 'strategy.update', feature: 'checkout', environment: 'development', id: 'nope', input: strategyUpdate({ title: 'x' }) })), 'NotFoundError', 404)
  })
})

t.test('deleting a strategy', async (t) => {
  t.test('deleting the last strategy of an enabled environment: feature-environment-disabled, then feature-strategy-remove', async (t) => {
    const s = withFlag()
    valueOf(s.toggle('web', 'checkout', 'development', true))
    const [strategy] = s.strategies('web', 'checkout', 'development')
    const events = s.ok('web', { type: 'strategy.delete', feature: 'checkout', environment: 'development', id: strategy.id })
    t.same(typesOf(events), ['feature-environment-disabled', 'feature-strategy-remove'])
    t.same(events[1].preData, strategy)
    t.match(events[1], { project: 'web', environment: 'development', featureName: 'checkout' })
    t.same(s.feature('web', 'checkout').environments.get('development'), { enabled: false, strategies: [], variants: [] })
  })

  t.test('deleting from a disabled environment emits only the removal', async (t) => {
    const s = withFlag()
    const id = s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    t.same(typesOf(s.ok('web', { type: 'strategy.delete', feature: 'checkout', environment: 'development', id })), ['feature-strategy-remove'])
  })

  t.test('when only disabled strategies remain the environment is switched off', async (t) => {
    const s = withFlag()
    valueOf(s.toggle('web', 'checkout', 'development', true))
    s.addStrategy('web', 'checkout', 'development', { name: 'default', disabled: true })
    const [active] = s.strategies('web', 'checkout', 'development')
    t.same(typesOf(s.ok('web', { type: 'strategy.delete', feature: 'checkout', environment: 'development', id: active.id })), ['feature-environment-disabled', 'feature-strategy-remove'])
  })

  // Unleash 8.2 side by side: 404 NotFoundError for an unknown id.
  t.test('an unknown id is a 404', async (t) => {
    const s = withFlag()
    assertError(t, errorOf(s.decide('web', { type: 'strategy.delete', feature: 'checkout', environment: 'development', id: 'nope' })), 'NotFoundError', 404)
  })
})

t.test('reordering strategies', async (t) => {
  t.test('emits strategy-order-changed with the new and the old order', async (t) => {
    const s = withFlag()
    const a = s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    const b = s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    const c = s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    const events = s.ok('web', {
      type: 'strategy.reorder',
      feature: 'checkout',
      environment: 'development',
      order: [
        { id: c, sortOrder: 0 },
        { id: a, sortOrder: 1 },
        { id: b, sortOrder: 2 },
      ],
    })
    t.same(typesOf(events), ['strategy-order-changed'])
    const [event] = events.filter((e) => e.type === 'strategy-order-changed')
    t.same(event.data.strategyIds, [c, a, b])
    t.same(event.preData.strategyIds, [a, b, c])
    t.same(orderedStrategies(s.strategies('web', 'checkout', 'development')).map((x) => x.id), [c, a, b])
  })

  t.test('the same order emits nothing', async (t) => {
    const s = withFlag()
    const a = s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    t.same(s.ok('web', { type: 'strategy.reorder', feature: 'checkout', environment: 'development', order: [{ id: a, sortOrder: 0 }] }), [])
  })

  t.test('ids of other flags are a 400', async (t) => {
    const s = withFlag()
    s.createFeature('web', 'other')
    const foreign = s.addStrategy('web', 'other', 'development', { name: 'default' })
    t.equal(errorOf(s.decide('web', { type: 'strategy.reorder', feature: 'checkout', environment: 'development', order: [{ id: foreign, sortOrder: 1 }] })).kind, 'BadDataError')
  })

  t.test('ties are broken by id', async (t) => {
    t.same(
      orderedStrategies([
        { id: 'b', sortOrder: 1 },
        { id: 'c', sortOrder: 0 },
        { id: 'a', sortOrder: 1 },
      ]).map((x) => x.id),
      ['c', 'a', 'b'],
    )
  })
})

t.test('switching an environment on and off', async (t) => {
  t.test('on with no strategies: feature-strategy-add (the default strategy), then feature-environment-enabled', async (t) => {
    const s = withFlag()
    const events = valueOf(s.toggle('web', 'checkout', 'production', true))
    t.same(typesOf(events), ['feature-strategy-add', 'feature-environment-enabled'])
    t.match(events[0], { project: 'web', environment: 'production', featureName: 'checkout' })
    t.match(events[0].data, { name: 'flexibleRollout', constraints: [], disabled: false, parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' } })
    t.match(events[1], { project: 'web', environment: 'production', featureName: 'checkout' })
    const env = s.feature('web', 'checkout').environments.get('production')
    t.equal(env?.enabled, true)
    t.equal(env?.strategies.length, 1)
  })

  t.test('the default strategy uses the project stickiness', async (t) => {
    const s = withFlag({ defaultStickiness: 'userId' })
    t.equal(recordOfType(valueOf(s.toggle('web', 'checkout', 'development', true)), 'feature-strategy-add').data.parameters.stickiness, 'userId')
  })

  t.test('on with an active strategy only enables', async (t) => {
    const s = withFlag()
    s.addStrategy('web', 'checkout', 'development', { name: 'default' })
    t.same(typesOf(valueOf(s.toggle('web', 'checkout', 'development', true))), ['feature-environment-enabled'])
  })

  t.test('on or off when already so emits nothing', async (t) => {
    const s = withFlag()
    t.same(valueOf(s.toggle('web', 'checkout', 'development', false)), [])
    valueOf(s.toggle('web', 'checkout', 'development', true))
    t.same(valueOf(s.toggle('web', 'checkout', 'development', true)), [])
    t.same(typesOf(valueOf(s.toggle('web', 'checkout', 'development', false))), ['feature-environment-disabled'])
    t.equal(s.feature('web', 'checkout').environments.get('development')?.enabled, false)
    t.equal(s.strategies('web', 'checkout', 'development').length, 1, 'switching off keeps the strategies')
  })

  t.test('on with only disabled strategies adds the default strategy', async (t) => {
    const s = withFlag()
    s.addStrategy('web', 'checkout', 'development', { name: 'default', disabled: true })
    t.same(typesOf(valueOf(s.toggle('web', 'checkout', 'development', true))), ['feature-strategy-add', 'feature-environment-enabled'])
    t.same(s.strategies('web', 'checkout', 'development').map((x) => x.disabled), [true, false])
  })

  t.test('on with shouldActivateDisabledStrategies re-enables the disabled strategies instead', async (t) => {
    const s = withFlag()
    const a = s.addStrategy('web', 'checkout', 'development', { name: 'default', disabled: true })
    const b = s.addStrategy('web', 'checkout', 'development', { name: 'userWithId', parameters: { userIds: 'u1' }, disabled: true })
    const events = valueOf(s.toggle('web', 'checkout', 'development', true, true))
    t.same(typesOf(events), ['feature-strategy-update', 'feature-strategy-update', 'feature-environment-enabled'])
    t.same(events.filter((e) => e.type === 'feature-strategy-update').map((e) => [e.data.id, e.data.disabled, e.preData.disabled]), [
      [a, false, true],
      [b, false, true],
    ])
    t.same(s.strategies('web', 'checkout', 'development').map((x) => x.disabled), [false, false])
  })

  t.test('shouldActivateDisabledStrategies with no strategies at all still adds the default strategy', async (t) => {
    const s = withFlag()
    t.same(typesOf(valueOf(s.toggle('web', 'checkout', 'development', true, true))), ['feature-strategy-add', 'feature-environment-enabled'])
  })

  t.test('an environment the flag lacks is a 404', async (t) => {
    const s = withFlag()
    assertError(t, errorOf(s.toggle('web', 'checkout', 'staging', true)), 'NotFoundError', 404, 'Could not find environment staging for feature: checkout')
  })

  t.test('an archived flag is a 400', async (t) => {
    const s = withFlag()
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    assertError(t, errorOf(s.toggle('web', 'checkout', 'development', true)), 'ArchivedFeatureError', 400)
  })

  t.test('an unknown flag is a 404', async (t) => {
    const s = withFlag()
    assertError(t, errorOf(s.toggle('web', 'nope', 'development', true)), 'NotFoundError', 404, 'There\'s no feature named "nope" in project "web"')
  })
})

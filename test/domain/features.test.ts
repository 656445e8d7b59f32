import t from 'tap'
import { setFlagsFromString } from 'node:v8'
import * as v from 'valibot'
import { createFeatureSchema, replaceFeatureSchema } from '../../src/schemas/features.js'
import { Scenario, assertError, errorOf, featureInput, typesOf } from './fixtures/scenario.js'
import { recordOfType } from '../../src/domain/events.js'

const webShop = () => {
  const s = new Scenario()
  s.createProject('web')
  return s
}

t.test('feature names', async (t) => {
  const allowed = ['a', 'checkout', 'A-Z_a-z.0-9', "it's!~*()", 'x'.repeat(100), '...', '.hidden']
  for (const name of allowed) t.ok(v.safeParse(createFeatureSchema, { name }).success, `"${name.slice(0, 20)}" is URL friendly`)
  const refused = ['', 'my flag', 'a/b', 'a:b', 'ø', 'flag\u{1F680}', '.', '..', 'x'.repeat(101), 'a%20b', 'a?b', 'a#b']
  for (const name of refused) {
    const parsed = v.safeParse(createFeatureSchema, { name })
    t.notOk(parsed.success, `"${name.slice(0, 20)}" is refused`)
  }
  const parsed = v.safeParse(createFeatureSchema, { name: 'my flag' })
  t.equal(parsed.success ? '' : parsed.issues[0].message, '"name" must be URL friendly')
  t.equal(featureInput({ name: 'x' }).type, 'release', 'type defaults to release')
  t.equal(featureInput({ name: 'x' }).impressionData, false)
})

t.test('create', async (t) => {
  t.test('emits feature-created with the stored flag and connects every project environment, off', async (t) => {
    const s = webShop()
    const events = s.createFeature('web', 'checkout', { description: 'new checkout', type: 'experiment', impressionData: true })
    t.same(typesOf(events), ['feature-created'])
    const [event] = events
    t.equal(event.project, 'web')
    t.equal(event.featureName, 'checkout')
    t.same(event.data, {
      name: 'checkout',
      description: 'new checkout',
      type: 'experiment',
      project: 'web',
      stale: false,
      createdAt: event.createdAt,
      impressionData: true,
      archived: false,
    })
    const feature = s.feature('web', 'checkout')
    t.equal(feature.stale, false)
    t.equal(feature.archived, false)
    t.same([...feature.environments.keys()].sort(), ['development', 'production'])
    for (const env of feature.environments.values()) t.same(env, { enabled: false, strategies: [], variants: [] })
    t.same(feature.lifecycle.map((l) => l.stage), ['initial'])
  })

  t.test('a name used in another project is a 409', async (t) => {
    const s = webShop()
    s.createProject('mobile')
    s.createFeature('mobile', 'checkout')
    assertError(t, errorOf(s.decide('web', { type: 'feature.create', input: featureInput({ name: 'checkout' }) })), 'NameExistsError', 409, 'A flag with that name already exists')
  })

  t.test('an archived name is a 409 of its own', async (t) => {
    const s = webShop()
    s.createFeature('web', 'checkout')
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    assertError(t, errorOf(s.decide('web', { type: 'feature.create', input: featureInput({ name: 'checkout' }) })), 'NameExistsError', 409, 'An archived flag with that name already exists')
  })

  t.test('a deleted name is free again', async (t) => {
    const s = webShop()
    s.createFeature('web', 'checkout')
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    s.ok('web', { type: 'feature.delete', names: ['checkout'] })
    t.same(typesOf(s.createFeature('web', 'checkout')), ['feature-created'])
  })

  t.test('the global limit of 5000 flags', async (t) => {
    const s = webShop()
    s.worldOverrides = { activeFeaturesAtLeast: (n) => 5000 >= n }
    assertError(t, errorOf(s.decide('web', { type: 'feature.create', input: featureInput({ name: 'one-too-many' }) })), 'ExceedsLimitError', 400, "Failed to create feature flag. You can't create more than the established limit of 5000.")
  })
})

t.test('naming pattern (PatternError, SEMANTICS 10)', async (t) => {
  const withNaming = (featureNaming: { pattern: string; example?: string; description?: string }) => {
    const s = new Scenario()
    s.createProject('web', { featureNaming })
    return s
  }
  const patternError = (s: Scenario, name: string) => errorOf(s.decide('web', { type: 'feature.create', input: featureInput({ name }) }))

  t.test('pattern only', async (t) => {
    const error = patternError(withNaming({ pattern: '[a-z]+-[0-9]+' }), 'Checkout')
    assertError(t, error, 'PatternError', 400, 'The feature flag name "Checkout" does not match the project\'s naming pattern: "[a-z]+-[0-9]+".')
    t.same(error.details, [{ message: 'The flag name does not match the pattern.' }])
  })

  t.test('pattern and example', async (t) => {
    const error = patternError(withNaming({ pattern: '[a-z]+-[0-9]+', example: 'web-1' }), 'Checkout')
    t.equal(
      error.message,
      'The feature flag name "Checkout" does not match the project\'s naming pattern: "[a-z]+-[0-9]+". Here\'s an example of a name that does match the pattern: "web-1"."',
    )
  })

  t.test('pattern, example and description', async (t) => {
    const error = patternError(withNaming({ pattern: '[a-z]+-[0-9]+', example: 'web-1', description: 'area-number' }), 'Checkout')
    t.equal(
      error.message,
      'The feature flag name "Checkout" does not match the project\'s naming pattern: "[a-z]+-[0-9]+". Here\'s an example of a name that does match the pattern: "web-1"." The pattern\'s description is: "area-number"',
    )
  })

  t.test('pattern and description', async (t) => {
    const error = patternError(withNaming({ pattern: '[a-z]+', description: 'lower case' }), 'ABC')
    t.equal(error.message, 'The feature flag name "ABC" does not match the project\'s naming pattern: "[a-z]+". The pattern\'s description is: "lower case"')
  })

  t.test('the pattern is anchored at both ends', async (t) => {
    const s = withNaming({ pattern: '[a-z]+' })
    t.equal(patternError(s, 'abc1').kind, 'PatternError')
    t.equal(patternError(s, '1abc').kind, 'PatternError')
    t.same(typesOf(s.createFeature('web', 'abc')), ['feature-created'])
  })

  t.test('an existing name is reported before the pattern', async (t) => {
    const s = withNaming({ pattern: '[a-z]+' })
    s.createProject('other')
    s.createFeature('other', 'ABC')
    t.equal(patternError(s, 'ABC').kind, 'NameExistsError')
  })
})

t.test('update and patch', async (t) => {
  const withFlag = () => {
    const s = webShop()
    s.createFeature('web', 'checkout', { description: 'old' })
    return s
  }

  t.test('update emits feature-metadata-updated with new data and old preData', async (t) => {
    const s = withFlag()
    const before = s.feature('web', 'checkout')
    const events = s.ok('web', { type: 'feature.update', name: 'checkout', input: { description: 'new', type: 'operational' } })
    t.same(typesOf(events), ['feature-metadata-updated'])
    t.match(events[0], { project: 'web', featureName: 'checkout' })
    t.match(events[0].data, { name: 'checkout', description: 'new', type: 'operational', project: 'web' })
    t.match(events[0].preData, { name: 'checkout', description: 'old', type: 'release', project: 'web', createdAt: before.createdAt })
    t.equal(s.feature('web', 'checkout').description, 'new')
    t.equal(s.feature('web', 'checkout').type, 'operational')
  })

  t.test('an update that changes nothing emits nothing', async (t) => {
    const s = withFlag()
    t.same(s.ok('web', { type: 'feature.update', name: 'checkout', input: { description: 'old' } }), [])
  })

  t.test('stale on and off are their own events, only when they change', async (t) => {
    const s = withFlag()
    t.same(typesOf(s.ok('web', { type: 'feature.update', name: 'checkout', input: { stale: true } })), ['feature-stale-on'])
    t.equal(s.feature('web', 'checkout').stale, true)
    t.same(s.ok('web', { type: 'feature.update', name: 'checkout', input: { stale: true } }), [])
    t.same(typesOf(s.ok('web', { type: 'feature.update', name: 'checkout', input: { stale: false } })), ['feature-stale-off'])
    t.equal(s.feature('web', 'checkout').stale, false)
  })

  t.test('the name and the project cannot be changed', async (t) => {
    const s = withFlag()
    t.equal(errorOf(s.decide('web', { type: 'feature.update', name: 'checkout', input: { name: 'other' } })).kind, 'BadDataError')
    t.equal(errorOf(s.decide('web', { type: 'feature.update', name: 'checkout', input: { project: 'mobile' } })).kind, 'BadDataError')
  })

  t.test('an unknown flag is a 404 naming the project, and where it is', async (t) => {
    const s = withFlag()
    s.createProject('mobile')
    assertError(t, errorOf(s.decide('mobile', { type: 'feature.update', name: 'nope', input: { stale: true } })), 'NotFoundError', 404, 'There\'s no feature named "nope" in project "mobile"')
    assertError(
      t,
      errorOf(s.decide('mobile', { type: 'feature.update', name: 'checkout', input: { stale: true } })),
      'NotFoundError',
      404,
      'There\'s no feature named "checkout" in project "mobile", but there\'s a feature with that name in project "web"',
    )
  })

  t.test('an archived flag cannot be updated', async (t) => {
    const s = withFlag()
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    assertError(t, errorOf(s.decide('web', { type: 'feature.update', name: 'checkout', input: { stale: true } })), 'ArchivedFeatureError', 400, 'Cannot perform this operation on archived features')
  })

  t.test('a PUT replaces the metadata: what it leaves out goes back to its default (Unleash 8.2)', async (t) => {
    const s = withFlag()
    s.ok('web', { type: 'feature.patch', name: 'checkout', patch: [{ op: 'replace', path: '/stale', value: true }, { op: 'replace', path: '/impressionData', value: true }] })
    const events = s.ok('web', { type: 'feature.replace', name: 'checkout', input: v.parse(replaceFeatureSchema, { name: 'checkout' }) })
    t.same(typesOf(events), ['feature-metadata-updated'], 'no stale event: the metadata update carries stale')
    t.match(events[0], { data: { description: null, type: 'release', impressionData: false, stale: false }, preData: { description: 'old', stale: true, impressionData: true } })
    const flag = s.feature('web', 'checkout')
    t.same([flag.description, flag.type, flag.impressionData, flag.stale], [null, 'release', false, false])
  })

  t.test('a PUT that sets stale records feature-metadata-updated alone; the same PUT again records nothing', async (t) => {
    const s = withFlag()
    const put = () => s.ok('web', { type: 'feature.replace', name: 'checkout', input: v.parse(replaceFeatureSchema, { description: '', stale: true }) })
    const events = put()
    t.same(typesOf(events), ['feature-metadata-updated'])
    t.match(events[0].data, { stale: true, description: null })
    t.equal(s.feature('web', 'checkout').stale, true)
    t.same(put(), [])
  })

  t.test('patching the description emits feature-metadata-updated', async (t) => {
    const s = withFlag()
    const events = s.ok('web', { type: 'feature.patch', name: 'checkout', patch: [{ op: 'replace', path: '/description', value: 'patched' }] })
    t.same(typesOf(events), ['feature-metadata-updated'])
    const event = recordOfType(events, 'feature-metadata-updated')
    t.equal(event.data.description, 'patched')
    t.equal(event.preData.description, 'old')
  })

  t.test('patching /stale also emits the stale event', async (t) => {
    const s = withFlag()
    const events = s.ok('web', {
      type: 'feature.patch',
      name: 'checkout',
      patch: [
        { op: 'replace', path: '/stale', value: true },
        { op: 'replace', path: '/impressionData', value: true },
      ],
    })
    // Unleash 8.2: the metadata update first, then the stale event.
    t.same(typesOf(events), ['feature-metadata-updated', 'feature-stale-on'])
    t.match(events[0], { data: { stale: true, impressionData: true }, preData: { stale: false, impressionData: false } })
    t.equal(s.feature('web', 'checkout').stale, true)
    t.equal(s.feature('web', 'checkout').impressionData, true)
  })

  t.test('patching /stale alone records feature-stale-off and feature-metadata-updated (SEMANTICS 9.2)', async (t) => {
    const s = withFlag()
    s.ok('web', { type: 'feature.patch', name: 'checkout', patch: [{ op: 'replace', path: '/stale', value: true }] })
    const events = s.ok('web', { type: 'feature.patch', name: 'checkout', patch: [{ op: 'replace', path: '/stale', value: false }] })
    t.same(typesOf(events), ['feature-metadata-updated', 'feature-stale-off'])
    t.match(events[0], { data: { stale: false }, preData: { stale: true } })
    t.equal(s.feature('web', 'checkout').stale, false)
  })

  t.test('a PATCH touching /variants is refused with 403', async (t) => {
    const s = withFlag()
    for (const path of ['/variants', '/variants/0', '/variants/-']) {
      const error = errorOf(s.decide('web', { type: 'feature.patch', name: 'checkout', patch: [{ op: 'add', path, value: { name: 'a', weight: 1000 } }] }))
      assertError(t, error, 'OperationDeniedError', 403)
    }
  })

  t.test('a patch that cannot apply is a 400 and changes nothing', async (t) => {
    const s = withFlag()
    const error = errorOf(
      s.send('web', {
        type: 'feature.patch',
        name: 'checkout',
        patch: [
          { op: 'replace', path: '/description', value: 'half' },
          { op: 'test', path: '/type', value: 'experiment' },
        ],
      }),
    )
    t.equal(error.kind, 'BadDataError')
    t.match(error.message, 'Could not apply provided patch: ')
    t.equal(s.feature('web', 'checkout').description, 'old')
  })

  t.test('a patch that produces an invalid flag is a 400', async (t) => {
    const s = withFlag()
    const error = errorOf(s.decide('web', { type: 'feature.patch', name: 'checkout', patch: [{ op: 'replace', path: '/type', value: 'no-such-type' }] }))
    t.equal(error.kind, 'BadDataError')
  })
})

t.test('archive, revive, delete', async (t) => {
  t.test('archive emits feature-archived and keeps the flag as archived', async (t) => {
    const s = webShop()
    s.createFeature('web', 'checkout')
    const events = s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    t.same(typesOf(events), ['feature-archived'])
    t.match(events[0], { project: 'web', featureName: 'checkout' })
    const feature = s.feature('web', 'checkout')
    t.equal(feature.archived, true)
    t.equal(feature.archivedAt, events[0].createdAt)
    t.same(feature.lifecycle.map((l) => l.stage), ['initial', 'archived'])
    t.same(s.ok('web', { type: 'feature.archive', names: ['checkout'] }), [], 'archiving again emits nothing')
  })

  t.test('archiving an unknown flag is a 404', async (t) => {
    const s = webShop()
    t.equal(errorOf(s.decide('web', { type: 'feature.archive', names: ['nope'] })).kind, 'NotFoundError')
  })

  t.test('revive emits feature-revived, switches every environment off and restarts the lifecycle', async (t) => {
    const s = webShop()
    s.createFeature('web', 'checkout')
    s.toggle('web', 'checkout', 'development', true)
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    const events = s.ok('web', { type: 'feature.revive', names: ['checkout'] })
    t.same(typesOf(events), ['feature-revived'])
    const feature = s.feature('web', 'checkout')
    t.equal(feature.archived, false)
    t.equal(feature.archivedAt, null)
    for (const env of feature.environments.values()) t.equal(env.enabled, false)
    t.equal(feature.environments.get('development')?.strategies.length, 1, 'strategies are kept')
    t.same(feature.lifecycle.map((l) => l.stage), ['initial'])
    t.same(s.ok('web', { type: 'feature.revive', names: ['checkout'] }), [], 'reviving an active flag emits nothing')
  })

  t.test('delete removes an archived flag, with the flag as preData and its tags', async (t) => {
    const s = webShop()
    s.createFeature('web', 'checkout', { tags: [{ type: 'simple', value: 'team-a' }] })
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    const events = s.ok('web', { type: 'feature.delete', names: ['checkout'] })
    t.same(typesOf(events), ['feature-deleted'])
    t.match(events[0], { project: 'web', featureName: 'checkout', preData: { name: 'checkout', project: 'web', archived: true } })
    t.same(events[0].tags, [{ type: 'simple', value: 'team-a' }])
    t.notOk(s.project('web').features.has('checkout'))
  })

  t.test('delete silently skips flags that are not archived', async (t) => {
    const s = webShop()
    s.createFeature('web', 'active')
    s.createFeature('web', 'old')
    s.ok('web', { type: 'feature.archive', names: ['old'] })
    const events = s.ok('web', { type: 'feature.delete', names: ['active', 'old'] })
    t.same(events.map((e) => e.featureName), ['old'])
    t.ok(s.project('web').features.has('active'))
  })

  t.test('children block archiving their parent', async (t) => {
    const s = webShop()
    s.createFeature('web', 'parent')
    s.createFeature('web', 'child')
    s.ok('web', { type: 'dependency.add', feature: 'child', dependency: { feature: 'parent', enabled: true, variants: [] } })
    assertError(
      t,
      errorOf(s.decide('web', { type: 'feature.archive', names: ['parent'] })),
      'InvalidOperationError',
      403,
      'You can not archive/delete this feature since other features depend on it.',
    )
  })

  t.test('archiving a parent together with its children is allowed; the child loses its dependency', async (t) => {
    const s = webShop()
    s.createFeature('web', 'parent')
    s.createFeature('web', 'child')
    s.ok('web', { type: 'dependency.add', feature: 'child', dependency: { feature: 'parent', enabled: true, variants: [] } })
    const events = s.ok('web', { type: 'feature.archive', names: ['parent', 'child'] })
    t.same(
      events.map((e) => [e.type, e.featureName]),
      [
        ['feature-archived', 'parent'],
        ['feature-dependencies-removed', 'child'],
        ['feature-archived', 'child'],
      ],
    )
    t.same(s.feature('web', 'child').dependencies, [])
  })

  t.test('an archived child no longer blocks its parent', async (t) => {
    const s = webShop()
    s.createFeature('web', 'parent')
    s.createFeature('web', 'child')
    s.ok('web', { type: 'dependency.add', feature: 'child', dependency: { feature: 'parent', enabled: true, variants: [] } })
    t.same(typesOf(s.ok('web', { type: 'feature.archive', names: ['child'] })), ['feature-dependencies-removed', 'feature-archived'])
    t.same(typesOf(s.ok('web', { type: 'feature.archive', names: ['parent'] })), ['feature-archived'])
  })

  t.test('a failing archive of several flags archives none', async (t) => {
    const s = webShop()
    s.createFeature('web', 'a')
    s.createFeature('web', 'parent')
    s.createFeature('web', 'child')
    s.ok('web', { type: 'dependency.add', feature: 'child', dependency: { feature: 'parent', enabled: true, variants: [] } })
    t.equal(s.send('web', { type: 'feature.archive', names: ['a', 'parent'] }).ok, false)
    t.equal(s.feature('web', 'a').archived, false)
  })
})

t.test('a patch result is validated with the feature schema', async (t) => {
  const s = webShop()
  s.createFeature('web', 'checkout')
  const error = errorOf(s.decide('web', { type: 'feature.patch', name: 'checkout', patch: [{ op: 'replace', path: '/impressionData', value: 'yes' }] }))
  t.equal(error.kind, 'BadDataError')
  t.match(error.message, /Could not apply provided patch: .+/)
})

t.test('a flag changed again and again keeps the hidden class of a flag just created', async (t) => {
  // V8's own test of hidden classes, compiled once the flag that allows it is set.
  setFlagsFromString('--allow-natives-syntax')
  const sameHiddenClass = new Function('a', 'b', 'return %HaveSameMap(a, b)') as (a: object, b: object) => boolean
  const s = new Scenario()
  s.createProject('p')
  s.createFeature('p', 'changed', { description: 'first' })
  s.addStrategy('p', 'changed', 'development', { name: 'default' })
  s.toggle('p', 'changed', 'development', true)
  s.ok('p', { type: 'feature.update', name: 'changed', input: v.parse(replaceFeatureSchema, { description: 'second', stale: true }) })
  s.addStrategy('p', 'changed', 'production', { name: 'default' })
  s.createFeature('p', 'fresh')
  const changed = s.feature('p', 'changed')
  t.ok(sameHiddenClass(changed, s.feature('p', 'fresh')), 'the changed flag has the fresh flag’s hidden class')
  t.match(changed, { name: 'changed', description: 'second', stale: true }, 'and its changes')
  t.equal(changed.environments.get('development')?.enabled, true, 'enabled in development')
  t.equal(changed.environments.get('production')?.strategies.length, 1, 'with its strategy in production')
})

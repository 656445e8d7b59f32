import t from 'tap'
import { Evaluator } from '../../src/eval/evaluator.js'
import type { EvalFeature, EvalSegment } from '../../src/eval/types.js'

const inSegment = (id: number, plan: string): EvalSegment => ({
  id,
  name: `segment-${id}`,
  constraints: [{ contextName: 'plan', operator: 'IN', values: [plan] }],
})
const usingSegment = (name: string, id: number): EvalFeature => ({ name, enabled: true, strategies: [{ name: 'default', segments: [id] }] })

t.test('an absent feature is off with the disabled variant, as in the SDK', async (t) => {
  t.same(new Evaluator().evaluate('nope', {}), {
    enabled: false,
    variant: { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false },
    impressionData: false,
  })
})

t.test('results are shared frozen objects', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll([{ name: 'f', enabled: true, strategies: [], variants: [{ name: 'v', weight: 1, payload: { type: 'string', value: 'x' } }] }], [])
  const result = evaluator.evaluate('f', { userId: 'u' })
  t.equal(evaluator.evaluate('f', { userId: 'other' }), result, 'no allocation per call')
  t.ok(Object.isFrozen(result) && Object.isFrozen(result.variant) && Object.isFrozen(result.variant.payload))
})

t.test('replaceAll swaps everything; has and featureNames follow', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll([{ name: 'a', enabled: true, strategies: [] }], [])
  t.same(evaluator.featureNames(), ['a'])
  evaluator.replaceAll([{ name: 'b', enabled: true, strategies: [] }], [])
  t.same(evaluator.featureNames(), ['b'])
  t.equal(evaluator.has('a'), false)
  t.equal(evaluator.has('b'), true)
})

t.test('any name is a flag of its own, names an object has by nature and numbers included', async (t) => {
  const evaluator = new Evaluator()
  const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '123', '0', '']
  evaluator.replaceAll(names.map((name) => ({ name, enabled: true, strategies: [] })), [])
  for (const name of names) t.equal(evaluator.evaluate(name, {}).enabled, true, JSON.stringify(name))
  t.equal(evaluator.evaluate('valueOf', {}).enabled, false, 'a name that is not a flag')
  evaluator.removeFeature('__proto__')
  evaluator.upsertFeature({ name: '123', enabled: false, strategies: [] })
  t.equal(evaluator.evaluate('__proto__', {}).enabled, false, 'removed')
  t.equal(evaluator.evaluate('123', {}).enabled, false, 'replaced')
  t.same(evaluator.featureNames(), ['', '0', '123', 'constructor', 'hasOwnProperty', 'toString'], 'every flag there, by name')
})

t.test('upsertFeature recompiles one feature and removeFeature drops it', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll([{ name: 'a', enabled: false, strategies: [] }], [])
  t.equal(evaluator.evaluate('a', {}).enabled, false)
  evaluator.upsertFeature({ name: 'a', enabled: true, strategies: [] })
  t.equal(evaluator.evaluate('a', {}).enabled, true)
  evaluator.removeFeature('a')
  t.equal(evaluator.has('a'), false)
  t.equal(evaluator.evaluate('a', {}).enabled, false)
  evaluator.removeFeature('a')
})

t.test('a flag gives back what it was compiled from, through recompiles for segments, and the count follows', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll([{ name: 'a', enabled: false, strategies: [] }], [inSegment(1, 'pro')])
  t.equal(evaluator.size, 1)
  t.equal(evaluator.originOf('a'), undefined, 'replaceAll is given none')
  const origin = { version: 1 }
  evaluator.upsertFeature(usingSegment('b', 1), origin)
  t.equal(evaluator.originOf('b'), origin)
  t.equal(evaluator.size, 2)
  evaluator.setSegments([inSegment(1, 'free')])
  t.equal(evaluator.evaluate('b', { properties: { plan: 'free' } }).enabled, true, 'recompiled for its changed segment')
  t.equal(evaluator.originOf('b'), origin, 'with its origin')
  const next = { version: 2 }
  evaluator.upsertFeature(usingSegment('b', 1), next)
  t.equal(evaluator.originOf('b'), next)
  t.equal(evaluator.size, 2, 'a flag compiled again is counted once')
  evaluator.removeFeature('b')
  evaluator.removeFeature('b')
  t.equal(evaluator.size, 1)
  t.equal(evaluator.originOf('b'), undefined)
})

t.test('setSegments recompiles only the features that use a changed or removed segment', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(
    [usingSegment('one', 1), usingSegment('two', 2), usingSegment('later', 3), { name: 'plain', enabled: true, strategies: [] }],
    [inSegment(1, 'pro'), inSegment(2, 'pro')],
  )
  const ctx = { properties: { plan: 'pro' } }
  const before = Object.fromEntries(['one', 'two', 'later', 'plain'].map((n) => [n, evaluator.evaluate(n, ctx)]))
  t.same(
    Object.values(before).map((r) => r.enabled),
    [true, true, false, true],
    'a segment id absent from the list fails its strategy',
  )
  evaluator.setSegments([inSegment(1, 'free'), inSegment(2, 'pro'), inSegment(3, 'pro')])
  t.equal(evaluator.evaluate('one', ctx).enabled, false, 'a changed segment applies')
  t.equal(evaluator.evaluate('later', ctx).enabled, true, 'a segment that appears applies')
  // Precomputed results are rebuilt on compile, so identity shows what was left alone.
  t.equal(evaluator.evaluate('two', ctx), before.two, 'an unchanged segment leaves its features compiled as they were')
  t.equal(evaluator.evaluate('plain', ctx), before.plain, 'features without segments are untouched')
  evaluator.setSegments([inSegment(1, 'free'), inSegment(3, 'pro')])
  t.equal(evaluator.evaluate('two', ctx).enabled, false, 'a removed segment fails its strategy')
  evaluator.upsertFeature(usingSegment('new', 3))
  t.equal(evaluator.evaluate('new', ctx).enabled, true, 'upserted features see the current segments')
})

t.test('disabled strategies are never evaluated', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(
    [
      { name: 'only-disabled', enabled: true, strategies: [{ name: 'userWithId', parameters: { userIds: 'x' }, disabled: true }] },
      {
        name: 'mixed',
        enabled: true,
        strategies: [
          { name: 'default', disabled: true },
          { name: 'userWithId', parameters: { userIds: 'u1' } },
        ],
      },
    ],
    [],
  )
  t.equal(evaluator.evaluate('only-disabled', { userId: 'nobody' }).enabled, true, 'SDKs see an empty list, which is on')
  t.equal(evaluator.evaluate('mixed', { userId: 'u2' }).enabled, false)
  t.equal(evaluator.evaluate('mixed', { userId: 'u1' }).enabled, true)
})

t.test('unknown strategies are false and later strategies still run', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll([{ name: 'f', enabled: true, strategies: [{ name: 'mine' }, { name: 'userWithId', parameters: { userIds: 'u1' } }] }], [])
  t.equal(evaluator.evaluate('f', { userId: 'u2' }).enabled, false)
  t.equal(evaluator.evaluate('f', { userId: 'u1' }).enabled, true)
})

t.test('impressionData is reported', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll([{ name: 'f', enabled: false, impressionData: true, strategies: [] }], [])
  t.equal(evaluator.evaluate('f', {}).impressionData, true)
})

t.test('applicationHostname uses the given hostname, case-insensitively', async (t) => {
  const evaluator = new Evaluator({ hostname: 'Web-1' })
  evaluator.replaceAll(
    [
      { name: 'here', enabled: true, strategies: [{ name: 'applicationHostname', parameters: { hostNames: 'db-1, WEB-1' } }] },
      { name: 'elsewhere', enabled: true, strategies: [{ name: 'applicationHostname', parameters: { hostNames: 'db-1' } }] },
    ],
    [],
  )
  t.equal(evaluator.evaluate('here', {}).enabled, true)
  t.equal(evaluator.evaluate('elsewhere', {}).enabled, false)
})

t.test('random stickiness draws from the injected random', async (t) => {
  let next = 0
  const evaluator = new Evaluator({ random: () => next })
  evaluator.replaceAll(
    [
      { name: 'coin', enabled: true, strategies: [{ name: 'gradualRolloutRandom', parameters: { percentage: '50' } }] },
      { name: 'anonymous', enabled: true, strategies: [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'random', groupId: 'g' } }] },
    ],
    [],
  )
  next = 0.1
  t.equal(evaluator.evaluate('coin', {}).enabled, true, 'floor(0.1 * 100) + 1 = 11 <= 50')
  next = 0.9
  t.equal(evaluator.evaluate('coin', {}).enabled, false, '91 > 50')
  const seen = new Set<boolean>()
  for (let i = 0; i < 100; i++) {
    next = i / 100
    seen.add(evaluator.evaluate('anonymous', {}).enabled)
  }
  t.same([...seen].sort(), [false, true], 'random ids land on both sides of the rollout')
})

t.test('flexibleRollout without groupId falls back to context.featureToggle (SDK)', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll([{ name: 'f', enabled: true, strategies: [{ name: 'flexibleRollout', parameters: { rollout: '10', stickiness: 'userId' } }] }], [])
  // 'Feature.flexibleRollout.10:174' normalises to 10 (SEMANTICS §1.2).
  t.equal(evaluator.evaluate('f', { userId: '174', featureToggle: 'Feature.flexibleRollout.10' }).enabled, true)
  t.equal(evaluator.evaluate('f', { userId: '174' }).enabled, false, "':174' lands elsewhere")
})

t.test('dependencies: missing parents, parents with parents, cycles and variants', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(
    [
      { name: 'parent', enabled: true, strategies: [], variants: [{ name: 'blue', weight: 1 }] },
      { name: 'plain-parent', enabled: true, strategies: [] },
      { name: 'off-parent', enabled: false, strategies: [] },
      { name: 'child', enabled: true, strategies: [], dependencies: [{ feature: 'parent' }] },
      { name: 'orphan', enabled: true, strategies: [], dependencies: [{ feature: 'gone' }] },
      { name: 'grandchild', enabled: true, strategies: [], dependencies: [{ feature: 'child' }] },
      { name: 'cycle-a', enabled: true, strategies: [], dependencies: [{ feature: 'cycle-b' }] },
      { name: 'cycle-b', enabled: true, strategies: [], dependencies: [{ feature: 'cycle-a' }] },
      { name: 'wants-blue', enabled: true, strategies: [], dependencies: [{ feature: 'parent', variants: ['blue'] }] },
      { name: 'wants-red', enabled: true, strategies: [], dependencies: [{ feature: 'parent', variants: ['red'] }] },
      { name: 'wants-disabled', enabled: true, strategies: [], dependencies: [{ feature: 'plain-parent', variants: ['disabled'] }] },
      { name: 'wants-off', enabled: true, strategies: [], dependencies: [{ feature: 'off-parent', enabled: false }] },
      { name: 'off-with-deps', enabled: false, strategies: [], dependencies: [{ feature: 'parent' }] },
    ],
    [],
  )
  const on = (name: string) => evaluator.evaluate(name, {}).enabled
  t.equal(on('child'), true)
  t.equal(on('orphan'), false, 'a missing parent is unsatisfied')
  t.equal(on('grandchild'), false, 'a parent with its own parent is unsatisfied')
  t.equal(on('cycle-a'), false, 'cycles end at the first parent with parents')
  t.equal(on('wants-blue'), true)
  t.equal(on('wants-red'), false)
  t.equal(on('wants-disabled'), true, '"disabled" matches an enabled parent without variants')
  t.equal(on('wants-off'), true, 'enabled:false wants the parent off')
  t.equal(on('off-with-deps'), false)
  t.same(evaluator.evaluate('orphan', {}).variant, { name: 'disabled', enabled: false, feature_enabled: false, featureEnabled: false })
})

t.test('enabledTogglesJson joins the compiled toggle JSON of the enabled flags in scope, by name', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(
    [
      { name: 'zeta', project: 'p', enabled: true, strategies: [], impressionData: true },
      { name: 'alpha', project: 'p', enabled: true, strategies: [], variants: [{ name: 'v', weight: 1, payload: { type: 'string', value: 'x' } }] },
      { name: 'mid', project: 'p', enabled: true, strategies: [{ name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] }] },
      { name: 'other', project: 'q', enabled: true, strategies: [] },
      { name: 'off', project: 'p', enabled: false, strategies: [] },
    ],
    [],
  )
  const toggles = (userId: string, projects: string[]) => JSON.parse(evaluator.enabledTogglesJson({ userId }, (p) => projects.includes(p)))
  t.same(toggles('u1', ['p']), [
    { name: 'alpha', enabled: true, variant: { name: 'v', enabled: true, payload: { type: 'string', value: 'x' }, feature_enabled: true, featureEnabled: true }, impressionData: false },
    { name: 'mid', enabled: true, variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }, impressionData: false },
    { name: 'zeta', enabled: true, variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true }, impressionData: true },
  ])
  t.same(toggles('u2', ['p', 'q']).map((x: { name: string }) => x.name), ['alpha', 'other', 'zeta'])
  evaluator.upsertFeature({ name: 'beta', project: 'q', enabled: true, strategies: [] })
  t.same(toggles('u2', ['q']).map((x: { name: string }) => x.name), ['beta', 'other'], 'a new flag takes its place in the order')
  evaluator.removeFeature('other')
  t.equal(evaluator.enabledTogglesJson({}, () => false), '[]')
  t.same(toggles('u2', ['q']).map((x: { name: string }) => x.name), ['beta'])
})

t.test('observe tells whether evaluations drew a random number and until when their clock readings hold', async (t) => {
  const realNow = Date.now
  t.teardown(() => {
    Date.now = realNow
  })
  Date.now = () => Date.parse('2024-05-01T00:00:00.000Z')
  const evaluator = new Evaluator({ random: () => 0.5 })
  evaluator.replaceAll(
    [
      { name: 'plain', enabled: true, strategies: [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'g' } }] },
      { name: 'past', enabled: true, strategies: [{ name: 'default', constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2020-01-01T00:00:00.000Z' }] }] },
      { name: 'soon', enabled: true, strategies: [{ name: 'default', constraints: [{ contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2024-06-01T00:00:00.000Z' }] }] },
      { name: 'later', enabled: true, strategies: [{ name: 'default', constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2025-01-01T00:00:00.000Z' }] }] },
      {
        name: 'none',
        enabled: true,
        strategies: [
          { name: 'flexibleRollout', parameters: { rollout: '0', groupId: 'g' }, constraints: [{ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2025-01-01T00:00:00.000Z' }] },
        ],
      },
      {
        name: 'guarded',
        enabled: true,
        strategies: [
          { name: 'flexibleRollout', parameters: { rollout: '50', stickiness: 'default', groupId: 'g' }, constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }] },
        ],
      },
    ],
    [],
  )
  const steady = { value: true, random: false, steadyUntil: Infinity }
  const sticky = evaluator.observe(() => evaluator.evaluate('plain', { userId: 'u' }).enabled)
  t.same([sticky.random, sticky.steadyUntil], [false, Infinity], 'a sticky rollout with a userId')
  t.same(evaluator.observe(() => evaluator.evaluate('soon', { currentTime: '2024-01-01T00:00:00.000Z' }).enabled), steady, 'currentTime given: no clock')
  t.same(evaluator.observe(() => evaluator.evaluate('past', {}).enabled), steady, 'a date already passed cannot change the answer')
  t.same(evaluator.observe(() => evaluator.evaluate('plain', {}).enabled).random, true, 'no userId or sessionId: a random draw')
  const both = evaluator.observe(() => [evaluator.evaluate('later', {}).enabled, evaluator.evaluate('soon', {}).enabled])
  t.same(both, { value: [false, true], random: false, steadyUntil: Date.parse('2024-06-01T00:00:00.000Z') }, 'the nearest date ahead')
  t.same(evaluator.observe(() => evaluator.evaluate('later', {}).enabled).steadyUntil, Date.parse('2025-01-01T00:00:00.000Z'), 'each observation starts afresh')
  t.same(evaluator.observe(() => evaluator.evaluate('none', {}).enabled), { value: false, random: false, steadyUntil: Infinity }, 'a rollout of 0 reads no constraint, so no clock')
  const ordered = new Evaluator()
  const dated = { contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2024-06-01T00:00:00.000Z' }
  const country = { contextName: 'country', operator: 'IN', values: ['no'] }
  const email = { contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com'], caseInsensitive: true }
  ordered.replaceAll(
    [
      { name: 'date-first', enabled: true, strategies: [{ name: 'default', constraints: [email, dated, country] }] },
      { name: 'date-last', enabled: true, strategies: [{ name: 'default', constraints: [email, country, dated] }] },
    ],
    [],
  )
  const se = { properties: { country: 'se', email: 'a@EXAMPLE.com' } }
  t.same(
    ordered.observe(() => ordered.evaluate('date-first', se).enabled),
    { value: false, random: false, steadyUntil: Date.parse('2024-06-01T00:00:00.000Z') },
    'cheaper tests run first, but none before a DATE_* test that came before it: its clock reading counts',
  )
  t.same(ordered.observe(() => ordered.evaluate('date-last', se).enabled), { value: false, random: false, steadyUntil: Infinity }, 'nor after one that came after it')
  t.equal(ordered.evaluate('date-first', { properties: { country: 'no', email: 'a@EXAMPLE.com' } }).enabled, true, 'all of them holding')
  t.same(evaluator.observe(() => evaluator.evaluate('guarded', { properties: { country: 'se' } }).enabled).random, false, 'constraints failing: no random draw')
  let draws = 0
  const counting = new Evaluator({
    random: () => {
      draws++
      return 0.5
    },
  })
  counting.replaceAll([{ name: 'guarded', enabled: true, strategies: [{ name: 'flexibleRollout', parameters: { rollout: '50', groupId: 'g' }, constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }] }] }], [])
  counting.evaluate('guarded', { properties: { country: 'no' } })
  t.equal(draws, 1, 'constraints holding, no userId or sessionId: one random draw')
})

t.test('the name order is kept as flags are added, compiled again, removed and their segments change: toggles and explanations as a fresh evaluator gives them', async (t) => {
  const { Utf8Builder } = await import('../../src/eval/utf8-builder.js')
  let seed = 7
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const segments = [inSegment(1, 'a'), inSegment(2, 'b')]
  const live = new Map<string, EvalFeature>()
  const kept = new Evaluator({ random: () => 0.5 })
  kept.replaceAll([], segments)
  const context = { userId: 'u', properties: { plan: 'a' } }
  const explained = (evaluator: Evaluator) => {
    const out = new Utf8Builder()
    evaluator.explainAll(context, () => true, (project, name) => `/${project}/${name}`, out, new Utf8Builder())
    return out.bytes().toString()
  }
  for (let step = 0; step < 400; step++) {
    const name = `flag-${Math.floor(random() * 60)}`
    const roll = random()
    if (roll < 0.2 && live.has(name)) {
      live.delete(name)
      kept.removeFeature(name)
    } else if (roll < 0.25) {
      segments[0] = inSegment(1, random() < 0.5 ? 'a' : 'c')
      kept.setSegments(segments)
    } else {
      const feature = random() < 0.3 ? usingSegment(name, 1) : { name, project: 'p', enabled: random() < 0.8, strategies: [] }
      live.set(name, feature)
      kept.upsertFeature(feature)
    }
    if (step % 20 !== 0) continue
    const fresh = new Evaluator({ random: () => 0.5 })
    fresh.replaceAll([...live.values()], segments)
    t.equal(kept.enabledTogglesJson(context, () => true), fresh.enabledTogglesJson(context, () => true), `toggles after step ${step}`)
    t.equal(explained(kept), explained(fresh), `explanations after step ${step}`)
  }
})

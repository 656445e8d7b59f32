import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import t from 'tap'
import { Utf8Builder } from '../../src/eval/utf8-builder.js'
import { Evaluator } from '../../src/eval/evaluator.js'
import type { EvalContext, EvalFeature, EvalSegment } from '../../src/eval/types.js'

const segments: EvalSegment[] = [
  { id: 1, name: 'beta users', constraints: [{ contextName: 'plan', operator: 'IN', values: ['beta'] }] },
  { id: 2, name: 'norway', constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }] },
]

const checkout: EvalFeature = {
  name: 'checkout',
  project: 'shop',
  enabled: true,
  strategies: [
    { id: 's1', name: 'default', title: 'switched off', disabled: true, constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] },
    { id: 's2', name: 'customStrategy', parameters: { anything: 1 }, constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'] }] },
    {
      id: 's3',
      name: 'flexibleRollout',
      parameters: { rollout: '100', stickiness: 'default', groupId: 'checkout' },
      constraints: [
        { contextName: 'userId', operator: 'NOT_IN', values: ['blocked'] },
        { contextName: 'appName', operator: 'IN', values: ['web'] },
      ],
      segments: [1, 2],
      variants: [{ name: 'blue', weight: 1000, stickiness: 'default', payload: { type: 'string', value: 'b' } }],
    },
    { id: 's4', name: 'userWithId', parameters: { userIds: 'u1, u2' }, segments: [99] },
  ],
  variants: [{ name: 'flag-variant', weight: 1000 }],
}

const explainer = (): Evaluator => {
  const evaluator = new Evaluator({ random: () => 0.5 })
  evaluator.replaceAll([checkout], segments)
  return evaluator
}

t.test('an absent feature has no explanation', async (t) => {
  t.equal(explainer().explain('nope', {}), undefined)
})

t.test('every strategy, constraint and segment is shown with its own result', async (t) => {
  const ctx: EvalContext = { appName: 'web', userId: 'u1', properties: { plan: 'beta', country: 'se' } }
  const feature = explainer().explain('checkout', ctx)!
  t.equal(feature.name, 'checkout')
  t.equal(feature.projectId, 'shop')
  t.equal(feature.isEnabledInCurrentEnvironment, true)
  t.equal(feature.hasUnsatisfiedDependency, false)
  const [disabled, custom, rollout, byId] = feature.strategies.data
  t.same(disabled, {
    name: 'default',
    id: 's1',
    title: 'switched off',
    disabled: true,
    parameters: {},
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['u1'], result: true }],
    segments: [],
    result: { evaluationStatus: 'unevaluated', enabled: 'unknown' },
    links: { edit: '' },
  })
  t.same(custom.parameters, { anything: '1' }, 'parameters are a string map')
  t.same(custom.result, { evaluationStatus: 'incomplete', enabled: 'unknown' }, 'an unknown strategy whose constraints pass is unknown')
  t.notOk('title' in custom, 'no title when none was given')
  t.same(
    rollout.constraints.map((c) => c.result),
    [true, true],
    'constraints are evaluated one by one',
  )
  t.same(
    rollout.segments.map((s) => [s.id, s.name, s.result, s.constraints.map((c) => c.result)]),
    [
      [1, 'beta users', true, [true]],
      [2, 'norway', false, [false]],
    ],
    'every segment is evaluated, no short-circuit',
  )
  // Unleash 8.2 side by side: a strategy that evaluates false still shows the variant it selects.
  t.same(rollout.result, {
    evaluationStatus: 'complete',
    enabled: false,
    variant: { name: 'blue', enabled: true, payload: { type: 'string', value: 'b' } },
    variants: checkout.strategies![2].variants,
  })
  t.same(byId.segments, [{ id: 99, name: '', result: false, constraints: [] }], 'a missing segment is shown as failing')
  t.same(byId.result, { evaluationStatus: 'incomplete', enabled: false }, 'userWithId is unknown to the playground (SEMANTICS 1.4); its missing segment fails it')
  t.equal(feature.strategies.result, 'unknown')
  t.equal(feature.isEnabled, false)
  t.same(feature.variant, { name: 'disabled', enabled: false, feature_enabled: false }, 'no featureEnabled, as Unleash 8.2')
  t.same(feature.variants, [{ name: 'flag-variant', weight: 1000 }], 'the flag variants when no strategy won')
})

t.test('a winning strategy with variants decides the variant', async (t) => {
  const ctx: EvalContext = { appName: 'web', userId: 'u1', properties: { plan: 'beta', country: 'no' } }
  const evaluator = explainer()
  const feature = evaluator.explain('checkout', ctx)!
  const rollout = feature.strategies.data[2]
  t.same(rollout.result, {
    evaluationStatus: 'complete',
    enabled: true,
    variant: { name: 'blue', enabled: true, payload: { type: 'string', value: 'b' } },
    variants: checkout.strategies![2].variants,
  })
  t.equal(feature.strategies.result, true)
  t.equal(feature.isEnabled, true)
  // Unleash 8.2 side by side: a strategy's variant has feature_enabled, not featureEnabled.
  t.same(feature.variant, { name: 'blue', enabled: true, payload: { type: 'string', value: 'b' }, feature_enabled: true })
  t.same(feature.variants, checkout.strategies![2].variants)
  const { featureEnabled: _featureEnabled, ...evaluated } = evaluator.evaluate('checkout', ctx).variant
  t.same(feature.variant, evaluated)
})

t.test('strategies.result', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(
    [
      { name: 'no-list', enabled: true, strategies: null },
      { name: 'empty', enabled: true, strategies: [] },
      { name: 'empty-off', enabled: false, strategies: [] },
      { name: 'all-disabled', enabled: true, strategies: [{ name: 'default', disabled: true }] },
      { name: 'unknown-failing', enabled: true, strategies: [{ name: 'custom', constraints: [{ contextName: 'userId', operator: 'IN', values: ['x'] }] }] },
      { name: 'off-but-true', enabled: false, strategies: [{ name: 'default' }] },
    ],
    [],
  )
  const explain = (name: string) => evaluator.explain(name, { appName: 'a' })!
  t.equal(explain('no-list').strategies.result, false, 'no strategy list is false')
  t.equal(explain('empty').strategies.result, true, 'no strategies follows the environment')
  t.equal(explain('empty-off').strategies.result, false)
  t.equal(explain('all-disabled').strategies.result, true, 'only disabled strategies: SDKs see none, so the environment decides')
  t.equal(explain('all-disabled').isEnabled, true)
  t.equal(explain('unknown-failing').strategies.result, false, 'an unknown strategy whose constraints fail is false')
  t.equal(explain('off-but-true').strategies.result, true)
  t.equal(explain('off-but-true').isEnabled, false, 'isEnabled needs the environment on')
})

t.test('dependencies are reported and follow the SDK rules', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(
    [
      { name: 'parent', enabled: true, strategies: [{ name: 'userWithId', parameters: { userIds: 'u1' } }] },
      { name: 'child', enabled: true, strategies: [], dependencies: [{ feature: 'parent' }] },
      { name: 'anti-child', enabled: true, strategies: [], dependencies: [{ feature: 'parent', enabled: false }] },
    ],
    [],
  )
  t.equal(evaluator.explain('child', { userId: 'u1' })!.hasUnsatisfiedDependency, false)
  t.equal(evaluator.explain('child', { userId: 'u1' })!.isEnabled, true)
  t.equal(evaluator.explain('child', { userId: 'u2' })!.hasUnsatisfiedDependency, true)
  t.equal(evaluator.explain('child', { userId: 'u2' })!.isEnabled, false)
  t.equal(evaluator.explain('anti-child', { userId: 'u2' })!.isEnabled, true, 'enabled:false wants the parent off')
})

t.test('strategies the server cannot evaluate are unknown in the playground, as in Unleash 8.2', async (t) => {
  // Written from what Unleash 8.2 does side by side: applicationHostname is {enabled: "unknown",
  // evaluationStatus: "incomplete"} and the flag's result "unknown", whatever the hostname.
  const evaluator = new Evaluator({ hostname: 'this-host' })
  evaluator.replaceAll([{ name: 'by-host', enabled: true, strategies: [{ name: 'applicationHostname', parameters: { hostNames: 'this-host' } }] }], [])
  const explained = evaluator.explain('by-host', { appName: 'a' })!
  t.same(explained.strategies.data[0].result, { evaluationStatus: 'incomplete', enabled: 'unknown' })
  t.equal(explained.strategies.result, 'unknown')
  t.equal(explained.isEnabled, false)
  t.equal(evaluator.evaluate('by-host', { appName: 'a' }).enabled, true, 'an SDK on this host says true')
})

// The client specification is a corpus of every kind of flag: explain must answer what evaluate answers
// for each of its contexts, except where Unleash's server evaluator differs from SDKs (SEMANTICS 1.4:
// applicationHostname and userWithId are unknown to it) and in featureEnabled, which Unleash's playground
// writes only on a flag's own variants.
const playgroundUnknown = new Set(['applicationHostname', 'userWithId'])
t.test('explain agrees with evaluate on every client-specification case', async (t) => {
  const require = createRequire(import.meta.url)
  const specDir = path.dirname(require.resolve('@unleash/client-specification/specifications/index.json'))
  const files: string[] = JSON.parse(readFileSync(path.join(specDir, 'index.json'), 'utf8'))
  let compared = 0
  const disagreements: unknown[] = []
  for (const file of files) {
    const spec = JSON.parse(readFileSync(path.join(specDir, file), 'utf8'))
    if (!spec.state.features) continue
    const evaluator = new Evaluator({ random: () => 0.42 })
    evaluator.replaceAll(spec.state.features, spec.state.segments ?? [])
    const contexts: EvalContext[] = [...(spec.tests ?? []), ...(spec.variantTests ?? [])].map((c: { context: EvalContext }) => c.context)
    for (const ctx of [{}, ...contexts]) {
      for (const name of evaluator.featureNames()) {
        const feature = spec.state.features.find((f: EvalFeature) => f.name === name) as EvalFeature
        if ((feature.strategies ?? []).some((s) => playgroundUnknown.has(s.name))) continue
        const explained = evaluator.explain(name, ctx)!
        const evaluated = evaluator.evaluate(name, ctx)
        const { featureEnabled: _explained, ...explainedVariant } = explained.variant as typeof evaluated.variant
        const { featureEnabled: _evaluated, ...evaluatedVariant } = evaluated.variant
        compared++
        if (explained.isEnabled !== evaluated.enabled || JSON.stringify(explainedVariant) !== JSON.stringify(evaluatedVariant)) {
          disagreements.push({ file, name, ctx, explained: [explained.isEnabled, explained.variant], evaluated })
        }
      }
    }
  }
  t.same(disagreements, [], `${compared} explanations agree with evaluate`)
})

t.test('explainJson writes the explanation from compiled fragments: the same as the object, with the edit links', async (t) => {
  const evaluator = explainer()
  const ctx: EvalContext = { userId: 'u1', appName: 'web', properties: { plan: 'beta', country: 'no' } }
  const json = evaluator.explainJson('checkout', ctx, '/edit?strategyId=')!
  const parsed = JSON.parse(json)
  t.same(
    parsed.strategies.data.map((s: { links: { edit: string } }) => s.links.edit),
    ['/edit?strategyId=s1', '/edit?strategyId=s2', '/edit?strategyId=s3', '/edit?strategyId=s4'],
  )
  const object = evaluator.explain('checkout', ctx)!
  for (const s of object.strategies.data) s.links = { edit: `/edit?strategyId=${s.id}` }
  t.equal(json, JSON.stringify(object), 'byte for byte what JSON.stringify of the object gives')
  t.same(parsed.strategies.data[2].constraints, [
    { contextName: 'userId', operator: 'NOT_IN', values: ['blocked'], result: true },
    { contextName: 'appName', operator: 'IN', values: ['web'], result: true },
  ])
  t.same(parsed.strategies.data[2].result, {
    evaluationStatus: 'complete',
    enabled: true,
    variant: { name: 'blue', enabled: true, payload: { type: 'string', value: 'b' } },
    variants: [{ name: 'blue', weight: 1000, stickiness: 'default', payload: { type: 'string', value: 'b' } }],
  })
  t.equal(evaluator.explainJson('nope', ctx, ''), undefined)
})

const explainAll = (evaluator: Evaluator, inScope: (project: string) => boolean, editLinkPrefix: (project: string, name: string) => string): string => {
  const out = new Utf8Builder()
  evaluator.explainAll({}, inScope, editLinkPrefix, out, new Utf8Builder(64))
  return out.bytes().toString()
}

t.test('explainAll lists the flags of the projects in scope by name', async (t) => {
  const evaluator = new Evaluator()
  evaluator.replaceAll(
    [
      { name: 'b/1', project: 'p', enabled: true, strategies: [{ id: 'x y', name: 'default' }] },
      { name: 'a', project: 'p', enabled: false, strategies: [] },
      { name: 'c', project: 'q', enabled: true, strategies: [] },
    ],
    [],
  )
  const all = JSON.parse(explainAll(evaluator, (p) => p === 'p', (project, name) => `/${project}/${name}?id=`))
  t.same(all.map((f: { name: string }) => f.name), ['a', 'b/1'])
  t.equal(all[1].strategies.data[0].links.edit, '/p/b%2F1?id=x%20y', 'the flag name and the strategy id URL-encoded')
  t.equal(all[0].isEnabled, false)
  t.equal(explainAll(evaluator, () => false, () => ''), '[]')
})

t.test('explainAll writes each flag as explainJson does, by name, whatever order the flags were compiled in', async (t) => {
  const evaluator = new Evaluator({ random: () => 0.5 })
  const projectOf = new Map([['m', 'shop'], ['b', 'other'], ['z', 'shop'], ['a', 'other'], ['k', 'shop'], ['c', 'other'], ['d', 'other']])
  evaluator.replaceAll(
    ['m', 'b', 'z', 'a', 'k', 'c'].map((name) => ({ ...checkout, name, project: projectOf.get(name) })),
    segments,
  )
  const ctx: EvalContext = { userId: 'u1', appName: 'web', properties: { plan: 'beta', country: 'no' } }
  const linkPrefix = (project: string, name: string) => `/${project}/${name}?id=`
  const written = (inScope: (project: string) => boolean) => {
    const out = new Utf8Builder(64).write('{"features":')
    evaluator.explainAll(ctx, inScope, linkPrefix, out, new Utf8Builder(64))
    return out.bytes().toString()
  }
  const each = (names: string[]) => names.map((name) => evaluator.explainJson(name, ctx, linkPrefix(projectOf.get(name)!, name))).join(',')
  t.equal(written(() => true), `{"features":[${each(['a', 'b', 'c', 'k', 'm', 'z'])}]`)
  t.equal(written((project) => project === 'shop'), `{"features":[${each(['k', 'm', 'z'])}]`)
  t.equal(written((project) => project === 'other'), `{"features":[${each(['a', 'b', 'c'])}]`)

  evaluator.upsertFeature({ ...checkout, name: 'd', project: 'other' })
  evaluator.removeFeature('a')
  t.equal(written((project) => project === 'other'), `{"features":[${each(['b', 'c', 'd'])}]`, 'flags added and removed since')
})

t.test('a flag explained again writes what its new outcomes say, not the last ones kept', async (t) => {
  const evaluator = explainer()
  const fresh = (ctx: EvalContext, prefix: string | undefined) => explainer().explainJson('checkout', ctx, prefix)
  const norway: EvalContext = { userId: 'u1', appName: 'web', properties: { plan: 'beta', country: 'no' } }
  const elsewhere: EvalContext = { userId: 'u2', appName: 'ios', properties: { plan: 'free', country: 'se' } }
  const first = evaluator.explainJson('checkout', norway, '/a?id=')
  const second = evaluator.explainJson('checkout', elsewhere, '/a?id=')
  t.not(second, first, 'other constraint results give other JSON')
  t.equal(second, fresh(elsewhere, '/a?id='), 'the same as a new evaluator writes')
  t.equal(JSON.parse(second!).strategies.data[2].constraints[1].result, false, "appName 'ios' is not in ['web']")
  t.equal(evaluator.explainJson('checkout', norway, '/a?id='), first, 'the first context again')
  const otherLinks = JSON.parse(evaluator.explainJson('checkout', norway, '/b?id=')!)
  t.equal(otherLinks.strategies.data[0].links.edit, '/b?id=s1', 'another link prefix is written, not the kept one')
  t.equal(evaluator.explainJson('checkout', norway, undefined), fresh(norway, undefined))
})

t.test('a flag changed since it was explained is explained as it is now', async (t) => {
  const evaluator = explainer()
  const ctx: EvalContext = { userId: 'u1', appName: 'web', properties: { plan: 'beta', country: 'no' } }
  t.equal(JSON.parse(evaluator.explainJson('checkout', ctx, '')!).isEnabled, true)
  evaluator.upsertFeature({ ...checkout, enabled: false })
  const after = JSON.parse(evaluator.explainJson('checkout', ctx, '')!)
  t.equal(after.isEnabledInCurrentEnvironment, false)
  t.equal(after.isEnabled, false)
})

t.test("the first active strategy, kept in the flag's own fields, is explained as the same strategy in a later place", async (t) => {
  const byDefault = checkout.strategies![2]
  // By a context field: the flag's numbers decide it, and no rule is kept for it (compile.ts inlinedRollout).
  const byTenant = { ...byDefault, id: 's5', parameters: { rollout: '50', stickiness: 'tenantId', groupId: 'checkout' } }
  const blocked = { id: 's0', name: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['nobody'] }] }
  const evaluator = new Evaluator({ random: () => 0.5 })
  evaluator.replaceAll(
    [byDefault, byTenant].flatMap((rollout) => [
      { name: `first-${rollout.id}`, project: 'shop', enabled: true, strategies: [rollout] },
      { name: `second-${rollout.id}`, project: 'shop', enabled: true, strategies: [blocked, rollout] },
    ]),
    segments,
  )
  const inSegments = { appName: 'web', properties: { plan: 'beta', country: 'no' } }
  const contexts: EvalContext[] = [
    { userId: 'u1', ...inSegments },
    { userId: 'blocked', appName: 'web' },
    {},
    ...['t1', 't2', 't3', 't4', 't5', 't6'].map((tenantId) => ({ ...inSegments, userId: 'u2', properties: { ...inSegments.properties, tenantId } })),
  ]
  let tenantsOn = 0
  for (const id of [byDefault.id, byTenant.id]) {
    for (const context of contexts) {
      const first = evaluator.explain(`first-${id}`, context)!
      const second = evaluator.explain(`second-${id}`, context)!
      t.same(second.strategies.data[1], first.strategies.data[0], `${id} ${JSON.stringify(context)}`)
      t.equal(first.isEnabled, second.isEnabled)
      t.equal(first.isEnabled, evaluator.evaluate(`first-${id}`, context).enabled, 'as evaluate() has it')
      t.same(first.variant, second.variant)
      if (id === byTenant.id && first.isEnabled) tenantsOn++
    }
  }
  t.ok(tenantsOn > 0 && tenantsOn < 6, `a 50 % rollout by tenant takes some tenants and not all (${tenantsOn} of 6)`)
})

import t from 'tap'
import { compileFeature, sourceOf } from '../../src/eval/compile.js'
import type { EvalFeature } from '../../src/eval/types.js'

// A compiled flag does not keep the object it was compiled from; sourceOf gives it back from the compiled
// form (for compiling again when a segment changes), with the lists it was given.
const env = { hostname: 'test-host', random: () => 0.5 }
const strategies: EvalFeature['strategies'] = [
  { name: 'default', disabled: true, constraints: [], parameters: {} },
  { name: 'flexibleRollout', constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }], parameters: { rollout: '50', stickiness: 'default', groupId: 'g' }, segments: [] },
]
const variants: EvalFeature['variants'] = [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }]

t.test('a flag with strategies, variants, dependencies and impression data comes back as it was given', async (t) => {
  const source: EvalFeature = { name: 'checkout', project: 'web', enabled: true, strategies, variants, dependencies: [{ feature: 'parent', enabled: true }], impressionData: true }
  const back = sourceOf(compileFeature(source, new Map(), env))
  t.same(back, source)
  t.equal(back.variants, variants, 'the same variants list')
  t.equal(back.strategies![1], strategies[1], 'the same strategy objects')
})

t.test('what compiling reads the same way comes back in one form', async (t) => {
  const back = sourceOf(compileFeature({ name: 'bare', enabled: false, strategies: null, variants: null }, new Map(), env))
  t.same(back, { name: 'bare', project: 'default', enabled: false, strategies: undefined, variants: [], dependencies: [], impressionData: false })
  const again = compileFeature(back, new Map(), env)
  t.equal(again.mode, compileFeature({ name: 'bare', enabled: false }, new Map(), env).mode)
  t.equal(again.hasStrategyList, false)
})

t.test('a flag with one active strategy keeps it in its own fields: no compiled strategy, no list of its own', async (t) => {
  const one = compileFeature({ name: 'one', enabled: true, strategies: [strategies![1]] }, new Map(), env)
  const other = compileFeature({ name: 'other', enabled: true, strategies: [{ name: 'default' }] }, new Map(), env)
  t.equal(one.others.length, 0)
  t.equal(one.others, other.others, 'one shared empty list')
  t.equal(one.restActive, one.others)
  t.equal(one.strategyCount, 1)
  t.equal(one.firstIndex, 0)
  const withDisabled = compileFeature({ name: 'checkout', enabled: true, strategies }, new Map(), env)
  t.equal(withDisabled.firstIndex, 1, 'after a disabled strategy')
  t.same(withDisabled.others.map((s) => s.source), [strategies![0]], 'the disabled one is compiled for explanations')
  t.same(withDisabled.restActive, [], 'and is not run')
})

t.test("a first flexibleRollout by a context field keeps no rule of its own: the flag's numbers decide it", async (t) => {
  const rollout = (groupId: string, stickiness: string) =>
    compileFeature({ name: groupId, enabled: true, strategies: [{ name: 'flexibleRollout', parameters: { rollout: '50', stickiness, groupId } }] }, new Map(), env)
  t.equal(rollout('a', 'tenantId').firstRule, rollout('b', 'tenantId').firstRule, 'one shared stand-in for every such flag')
  t.not(rollout('a', 'default').firstRule, rollout('b', 'default').firstRule, 'the default stickiness keeps its rule (a random id when the context has none)')
})

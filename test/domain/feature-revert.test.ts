import t from 'tap'
import { Scenario, errorOf, typesOf, valueOf } from './fixtures/scenario.js'

const tagWorld = { tagTypeExists: () => true, tagExists: () => true }

const withFlag = () => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'checkout')
  return s
}

const revertTo = (s: Scenario, past: ReturnType<Scenario['feature']>, pastEventId = 7) =>
  s.send('web', { type: 'feature.revert', past, pastEventId, newStrategyIds: { development: 'new-1', production: 'new-2' }, tags: tagWorld })

t.test('switching an environment back on comes after its strategies, so no default strategy is added', async (t) => {
  const s = withFlag()
  s.addStrategy('web', 'checkout', 'development', { name: 'flexibleRollout', parameters: { rollout: '10' } }, 'st-1')
  s.apply('web', valueOf(s.toggle('web', 'checkout', 'development', true)))
  const past = s.feature('web', 'checkout')
  s.ok('web', { type: 'strategy.delete', feature: 'checkout', environment: 'development', id: 'st-1' })
  t.equal(s.feature('web', 'checkout').environments.get('development')?.enabled, false, 'removing the only strategy switched it off')

  const events = valueOf(revertTo(s, past))
  t.same(typesOf(events), ['feature-strategy-add', 'feature-environment-enabled'])
  t.same(s.strategies('web', 'checkout', 'development').map((x) => [x.id, x.parameters.rollout]), [['st-1', '10']])
  t.equal(s.feature('web', 'checkout').environments.get('development')?.enabled, true)
})

t.test('strategies are added before others are removed, so the environment is never switched off on the way', async (t) => {
  const s = withFlag()
  s.addStrategy('web', 'checkout', 'development', { name: 'default' }, 'st-1')
  s.apply('web', valueOf(s.toggle('web', 'checkout', 'development', true)))
  const past = s.feature('web', 'checkout')
  s.addStrategy('web', 'checkout', 'development', { name: 'default' }, 'st-2')
  s.ok('web', { type: 'strategy.delete', feature: 'checkout', environment: 'development', id: 'st-1' })

  t.same(typesOf(valueOf(revertTo(s, past))), ['feature-strategy-add', 'feature-strategy-remove'])
  t.same(s.strategies('web', 'checkout', 'development').map((x) => x.id), ['st-1'])
})

t.test('metadata and tags come back; a flag already as it was records nothing', async (t) => {
  const s = withFlag()
  const past = s.feature('web', 'checkout')
  s.ok('web', { type: 'feature.update', name: 'checkout', input: { description: 'changed', type: 'kill-switch', stale: true } })
  s.ok('web', { type: 'tags.update', feature: 'checkout', update: { set: [{ type: 'simple', value: 'beta' }] }, tags: tagWorld })

  t.same(typesOf(valueOf(revertTo(s, past))), ['feature-metadata-updated', 'feature-stale-off', 'feature-untagged'])
  t.match(s.feature('web', 'checkout'), { description: null, type: 'release', stale: false, tags: [] })
  t.same(valueOf(revertTo(s, past)), [])
})

t.test('a flag archived since, or archived at that point, is refused with 409', async (t) => {
  const s = withFlag()
  const past = s.feature('web', 'checkout')
  s.ok('web', { type: 'feature.archive', names: ['checkout'] })
  const archived = errorOf(revertTo(s, past, 3))
  t.equal(archived.kind, 'ConflictError')
  t.equal(archived.message, 'Feature flag "checkout" is archived; revive it before reverting it')
  const atArchive = errorOf(revertTo(withFlag(), s.feature('web', 'checkout'), 4))
  t.equal(atArchive.message, 'Feature flag "checkout" was archived just after event 4; archive it instead')
})

import t from 'tap'
import { activeFeatureCount, childrenOf, staleCounts } from '../../src/domain/flag-facts.js'
import { Scenario, errorOf } from './fixtures/scenario.js'

// The facts kept with each version of a project's flags (flag-facts.ts): whatever events happen, each
// is what walking the flags gives. (The potentially-stale time: test/domain/lifecycle.test.ts.)
t.test('the count of active flags follows every event that changes a flag', async (t) => {
  const s = new Scenario()
  s.createProject('web')
  s.createProject('mobile')
  const recount = (project: string) => [...s.projects.get(project)!.features.values()].filter((f) => !f.archived).length
  const active = (project: string) => [...s.projects.get(project)!.features.values()].filter((f) => !f.archived)
  const recountStale = (project: string) => ({
    stale: active(project).filter((f) => f.stale).length,
    potentiallyStale: active(project).filter((f) => !f.stale && f.potentiallyStale === true).length,
  })
  const check = (what: string) => {
    for (const project of ['web', 'mobile']) {
      t.equal(activeFeatureCount(s.projects.get(project)!.features), recount(project), `${project}: ${what}`)
      t.same(staleCounts(s.projects.get(project)!.features), recountStale(project), `${project}: ${what} (stale counts)`)
    }
  }
  check('no flags')
  for (let i = 0; i < 150; i++) s.createFeature('web', `flag-${i}`)
  check('150 created (past the size where the flag map becomes persistent)')
  s.ok('web', { type: 'feature.archive', names: ['flag-1', 'flag-2', 'flag-3'] })
  check('three archived')
  s.ok('web', { type: 'feature.archive', names: ['flag-3'] })
  check('archiving an archived flag again')
  s.ok('web', { type: 'feature.revive', names: ['flag-2'] })
  check('one revived')
  s.ok('web', { type: 'feature.delete', names: ['flag-1'] })
  check('an archived one deleted')
  s.ok('web', { type: 'feature.update', name: 'flag-4', input: { description: 'changed', stale: true } })
  check('metadata and stale changed')
  s.ok('web', { type: 'feature.setStale', names: ['flag-7', 'flag-8'], stale: true })
  s.ok('web', { type: 'feature.setStale', names: ['flag-8'], stale: false })
  check('marked stale and the mark cleared')
  s.ok('web', { type: 'feature.markPotentiallyStale', lifetimes: { release: 0 } })
  check('marked potentially stale')
  t.ok(staleCounts(s.projects.get('web')!.features).potentiallyStale > 0, 'flags were marked potentially stale')
  s.ok('web', { type: 'feature.moveOut', feature: 'flag-5', target: s.projects.get('mobile')! })
  s.ok('mobile', { type: 'feature.moveIn', feature: { ...s.projects.get('web')!.features.get('flag-6')!, name: 'flag-5' } })
  check('a flag moved out of one project and into another')
  s.ok('web', { type: 'projectEnvironment.remove', environment: 'production' })
  check('an environment removed from every flag')
  for (let i = 150; i < 160; i++) s.createFeature('web', `flag-${i}`)
  s.ok('web', { type: 'feature.archive', names: ['flag-150'] })
  check('more created and archived after that')
})
t.test('the children of each flag follow every event, and the rules that read them still hold', async (t) => {
  const s = new Scenario()
  s.createProject('web')
  for (let i = 0; i < 140; i++) s.createFeature('web', `flag-${i}`)
  const walked = (name: string) =>
    [...s.project('web').features.values()].filter((f) => !f.archived && f.dependencies.some((d) => d.feature === name)).map((f) => f.name)
  const check = (what: string) => {
    for (const name of ['flag-0', 'flag-1', 'flag-2', 'flag-139']) t.same(childrenOf(s.project('web').features, name), walked(name), `${name}: ${what}`)
  }
  check('no dependencies')
  s.ok('web', { type: 'dependency.add', feature: 'flag-10', dependency: { feature: 'flag-0', enabled: true, variants: [] } })
  s.ok('web', { type: 'dependency.add', feature: 'flag-11', dependency: { feature: 'flag-0', enabled: false, variants: [] } })
  s.ok('web', { type: 'dependency.add', feature: 'flag-12', dependency: { feature: 'flag-1', enabled: true, variants: [] } })
  check('three children of two parents')
  t.match(errorOf(s.decide('web', { type: 'dependency.add', feature: 'flag-0', dependency: { feature: 'flag-2', enabled: true, variants: [] } })).message, /Transitive dependency/, 'a parent cannot get a parent')
  t.match(errorOf(s.decide('web', { type: 'feature.archive', names: ['flag-0'] })).message, /other features depend on it/, 'a parent cannot be archived')
  s.createFeature('web', 'flag-new')
  s.ok('web', { type: 'feature.update', name: 'flag-10', input: { description: 'changed' } })
  check('a flag created and a child changed')
  s.ok('web', { type: 'feature.archive', names: ['flag-12'] })
  check('a child archived')
  s.ok('web', { type: 'feature.archive', names: ['flag-1'] })
  check('its parent can go now')
  s.ok('web', { type: 'dependency.remove', feature: 'flag-11', parent: 'flag-0' })
  check('a dependency removed')
  s.ok('web', { type: 'feature.archive', names: ['flag-0', 'flag-10'] })
  check('a parent archived with its last child in one command')
  s.ok('web', { type: 'feature.revive', names: ['flag-10'] })
  check('the child revived')
})

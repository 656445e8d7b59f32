import t from 'tap'
import { activeFeatureCount } from '../../src/domain/active-count.js'
import { Scenario } from './fixtures/scenario.js'

// The flag limits read a count of active flags kept with each version of a project's flags: whatever
// events happen, it is what counting them gives.
t.test('the count of active flags follows every event that changes a flag', async (t) => {
  const s = new Scenario()
  s.createProject('web')
  s.createProject('mobile')
  const recount = (project: string) => [...s.projects.get(project)!.features.values()].filter((f) => !f.archived).length
  const check = (what: string) => {
    for (const project of ['web', 'mobile']) t.equal(activeFeatureCount(s.projects.get(project)!.features), recount(project), `${project}: ${what}`)
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
  s.ok('web', { type: 'feature.moveOut', feature: 'flag-5', target: s.projects.get('mobile')! })
  s.ok('mobile', { type: 'feature.moveIn', feature: { ...s.projects.get('web')!.features.get('flag-6')!, name: 'flag-5' } })
  check('a flag moved out of one project and into another')
  s.ok('web', { type: 'projectEnvironment.remove', environment: 'production' })
  check('an environment removed from every flag')
  for (let i = 150; i < 160; i++) s.createFeature('web', `flag-${i}`)
  s.ok('web', { type: 'feature.archive', names: ['flag-150'] })
  check('more created and archived after that')
})

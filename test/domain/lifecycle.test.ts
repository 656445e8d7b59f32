import t from 'tap'
import { noProjects } from '../../src/actors/instance.machine.js'
import { decideInstance, evolveInstance } from '../../src/domain/instance.js'
import { decideProject } from '../../src/domain/project.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { initialLifecycle } from '../../src/domain/project-state.js'
import { lifetimesOf, withBuiltInFeatureTypes } from '../../src/domain/feature-types.js'
import { currentLifecycleStage, mergeLifecycle } from '../../src/domain/lifecycle.js'
import { hasPotentiallyStaleCandidates, isPastLifetime, potentiallyStaleCandidates } from '../../src/domain/staleness.js'
import { Scenario, assertError, epoch, errorOf, typesOf, valueOf } from './fixtures/scenario.js'

const shop = () => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'checkout')
  return s
}

const day = 24 * 60 * 60 * 1000
const iso = (ms: number) => new Date(ms).toISOString()

t.test('lifecycle', async (t) => {
  t.test('complete records the completed stage with its status; completing again changes only the status', async (t) => {
    const s = shop()
    const events = s.ok('web', { type: 'feature.complete', feature: 'checkout', input: { status: 'kept', statusValue: 'v2' } })
    t.same(typesOf(events), ['feature-completed'])
    t.same(events[0].data, { status: 'kept', statusValue: 'v2', kept: true })
    const completed = s.feature('web', 'checkout').lifecycle.find((l) => l.stage === 'completed')!
    t.match(completed, { stage: 'completed', status: 'kept', statusValue: 'v2', enteredStageAt: events[0].createdAt })
    t.same(s.ok('web', { type: 'feature.complete', feature: 'checkout', input: { status: 'kept', statusValue: 'v2' } }), [], 'same status: no event')
    s.ok('web', { type: 'feature.complete', feature: 'checkout', input: { status: 'discarded' } })
    const again = s.feature('web', 'checkout').lifecycle.filter((l) => l.stage === 'completed')
    t.equal(again.length, 1, 'the stage is held once')
    t.match(again[0], { status: 'discarded', enteredStageAt: completed.enteredStageAt })
    t.notOk('statusValue' in again[0], 'the old statusValue is gone')
  })

  t.test('uncomplete removes the completed stage; nothing to remove, no event', async (t) => {
    const s = shop()
    t.same(s.ok('web', { type: 'feature.uncomplete', feature: 'checkout' }), [])
    s.ok('web', { type: 'feature.complete', feature: 'checkout', input: { status: 'kept' } })
    t.same(typesOf(s.ok('web', { type: 'feature.uncomplete', feature: 'checkout' })), ['feature-uncompleted'])
    t.same(s.feature('web', 'checkout').lifecycle.map((l) => l.stage), ['initial'])
  })

  t.test('an archived flag cannot be completed', async (t) => {
    const s = shop()
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    assertError(t, errorOf(s.decide('web', { type: 'feature.complete', feature: 'checkout', input: { status: 'kept' } })), 'ArchivedFeatureError', 400)
  })

  t.test('flags created at one time share their first stage, frozen; another time has its own', async (t) => {
    const at = iso(epoch)
    const first = initialLifecycle(at)
    t.same(first, [{ stage: 'initial', enteredStageAt: at }])
    t.equal(initialLifecycle(at), first, 'one list for the same time')
    t.ok(Object.isFrozen(first) && Object.isFrozen(first[0]), 'frozen, so that no flag changes it for the others')
    const later = initialLifecycle(iso(epoch + day))
    t.not(later, first)
    t.same(later, [{ stage: 'initial', enteredStageAt: iso(epoch + day) }])
    t.same(first, [{ stage: 'initial', enteredStageAt: at }], 'the earlier one is as it was')
  })

  t.test('metric stages merge in order, and those from before the latest initial are dropped', async (t) => {
    const stored = [{ stage: 'initial' as const, enteredStageAt: iso(epoch + 10 * day) }]
    const merged = mergeLifecycle(stored, [
      { stage: 'pre-live', enteredStageAt: iso(epoch + 11 * day) },
      { stage: 'live', enteredStageAt: iso(epoch + 12 * day) },
    ])
    t.same(merged.map((l) => l.stage), ['initial', 'pre-live', 'live'])
    t.equal(currentLifecycleStage(merged, iso(epoch)).stage, 'live')
    const stale = mergeLifecycle(stored, [{ stage: 'pre-live', enteredStageAt: iso(epoch + 2 * day) }])
    t.same(stale.map((l) => l.stage), ['initial'], 'a pre-live from an earlier life is ignored')
    const archived = mergeLifecycle([...stored, { stage: 'archived', enteredStageAt: iso(epoch + 20 * day) }], [{ stage: 'live', enteredStageAt: iso(epoch + 15 * day) }])
    t.same(archived.map((l) => l.stage), ['initial', 'live', 'archived'])
    t.equal(currentLifecycleStage(archived, iso(epoch)).stage, 'archived', 'archived wins over live')
  })
})

t.test('staleness', async (t) => {
  t.test('stale on/off emits only for flags that change', async (t) => {
    const s = shop()
    s.createFeature('web', 'cart')
    s.ok('web', { type: 'feature.update', name: 'cart', input: { stale: true } })
    const events = s.ok('web', { type: 'feature.setStale', names: ['checkout', 'cart'], stale: true })
    t.same(typesOf(events), ['feature-stale-on'])
    t.equal(events[0].featureName, 'checkout')
    t.ok(s.feature('web', 'checkout').stale)
    t.same(typesOf(s.ok('web', { type: 'feature.setStale', names: ['checkout', 'cart'], stale: false })), ['feature-stale-off', 'feature-stale-off'])
    assertError(t, errorOf(s.decide('web', { type: 'feature.setStale', names: ['nope'], stale: true })), 'NotFoundError', 404)
  })

  t.test('the potentially-stale job marks flags past their type lifetime, once', async (t) => {
    const s = shop() // checkout: release, 40 days
    s.createFeature('web', 'ops', { type: 'operational' }) // 7 days
    s.createFeature('web', 'kill', { type: 'kill-switch' }) // never
    s.createFeature('web', 'old-stale', { type: 'operational' })
    s.ok('web', { type: 'feature.update', name: 'old-stale', input: { stale: true } })
    const lifetimes = lifetimesOf(emptyInstance().featureTypes)
    t.same(lifetimes, { release: 40, experiment: 40, operational: 7, 'kill-switch': null, permission: null, sunset: 90 })
    const meta8 = { now: iso(epoch + 8 * day), actor: { name: 'unleash_system_user', userId: -1337 } }
    const command = { type: 'feature.markPotentiallyStale' as const, lifetimes }
    const decided = valueOf(s.decide('web', command))
    t.same(decided.length, 0, 'the scenario clock is at the epoch: nothing is old yet')
    const events = valueOf(decideProject(s.project('web'), { ...command, meta: meta8, world: s.world() }))
    t.same(events.map((e) => [e.type, e.featureName]), [['feature-potentially-stale-on', 'ops']])
    t.match(events[0], { createdBy: 'unleash_system_user', createdByUserId: -1337, project: 'web' })
    s.apply('web', events)
    t.equal(s.feature('web', 'ops').potentiallyStale, true)
    t.same(valueOf(decideProject(s.project('web'), { ...command, meta: meta8, world: s.world() })), [], 'already marked: no second event')
    const meta41 = { ...meta8, now: iso(epoch + 41 * day) }
    t.same(valueOf(decideProject(s.project('web'), { ...command, meta: meta41, world: s.world() })).map((e) => e.featureName), ['checkout'])
    t.notOk(isPastLifetime(s.feature('web', 'kill'), lifetimes, epoch + 1000 * day), 'kill switches never go stale')
  })

  // The job asks every minute; the answer comes from a time kept with the project's flags, carried from
  // one version of them to the next, and must be what walking the flags says.
  t.test('whether the job has flags to mark agrees with walking the flags, through the changes in between', async (t) => {
    const s = shop() // checkout: release, 40 days
    const lifetimes = lifetimesOf(emptyInstance().featureTypes)
    const agree = (atDay: number, what: string) => {
      const now = epoch + atDay * day
      const walked = potentiallyStaleCandidates(s.project('web'), lifetimes, now).length > 0
      t.equal(hasPotentiallyStaleCandidates(s.project('web'), lifetimes, now), walked, `day ${atDay}, ${what}: ${walked}`)
    }
    agree(3, 'nothing old yet')
    for (let i = 0; i < 140; i++) s.createFeature('web', `flag-${i}`, { type: i === 70 ? 'operational' : 'permission' })
    agree(3, 'a flag that lives 7 days, 140 that never go stale')
    agree(8, 'the operational one is past its 7 days')
    s.ok('web', { type: 'feature.update', name: 'flag-70', input: { stale: true } })
    agree(8, 'marked stale by hand: not a candidate')
    agree(39, 'the release flag has a day left')
    agree(41, 'the release flag is past its 40 days')
    s.ok('web', { type: 'feature.archive', names: ['checkout'] })
    agree(41, 'the release flag archived')
    s.createFeature('web', 'late-release')
    agree(41, 'a new release flag (the scenario clock stays near the epoch: it is past its 40 days too)')
    agree(100, 'still past')
    const marked = valueOf(decideProject(s.project('web'), { type: 'feature.markPotentiallyStale', lifetimes, meta: { now: iso(epoch + 100 * day), actor: { name: 'unleash_system_user', userId: -1337 } }, world: s.world() }))
    s.apply('web', marked)
    agree(100, 'after the job marked it')
    const shorter = { ...lifetimes, permission: 1 }
    t.equal(hasPotentiallyStaleCandidates(s.project('web'), shorter, epoch + 3 * day), true, 'other lifetimes: counted again')
  })
})

t.test('feature types', async (t) => {
  const meta = { now: iso(epoch), actor: { name: 'admin', userId: -42 } }
  t.test("Unleash 8.2's six types with their lifetimes", async (t) => {
    t.same([...emptyInstance().featureTypes.values()].map((f) => [f.id, f.lifetimeDays]), [
      ['release', 40],
      ['experiment', 40],
      ['operational', 7],
      ['kill-switch', null],
      ['permission', null],
      ['sunset', 90],
    ])
  })
  t.test("a state of an older version gets the types added since and today's texts, and keeps its lifetimes", async (t) => {
    const older = { ...emptyInstance(), featureTypes: new Map([['release', { id: 'release', name: 'Release', description: 'Release feature flags are used to release new features.', lifetimeDays: 12 }]]) }
    const now = withBuiltInFeatureTypes(older)
    t.same(now.featureTypes.get('release'), { id: 'release', name: 'Release', description: 'Roll out new or incomplete features. Expected lifetime ~40 days', lifetimeDays: 12 })
    t.same(now.featureTypes.get('sunset'), { id: 'sunset', name: 'Sunset', description: 'Coordinate the planned removal of an existing feature. Expected lifetime: ~90 days', lifetimeDays: 90 })
    t.equal(now.featureTypes.size, 6)
  })
  t.test('replaying an older feature-type-updated event changes the lifetime only', async (t) => {
    const old = { type: 'feature-type-updated', data: { id: 'release', name: 'Release', description: 'an older text', lifetimeDays: 5 }, preData: { id: 'release', name: 'Release', description: 'an older text', lifetimeDays: 40 } }
    const next = evolveInstance(emptyInstance(), old as Parameters<typeof evolveInstance>[1])
    t.match(next.featureTypes.get('release'), { description: 'Roll out new or incomplete features. Expected lifetime ~40 days', lifetimeDays: 5 })
  })
  t.test('setting a lifetime emits feature-type-updated; 0 means none; unknown type 404', async (t) => {
    const state = emptyInstance()
    const events = valueOf(decideInstance(state, { type: 'featureType.setLifetime', id: 'release', lifetimeDays: 10, meta }, noProjects))
    t.same(typesOf(events), ['feature-type-updated'])
    t.match(events[0], { data: { id: 'release', lifetimeDays: 10 }, preData: { lifetimeDays: 40 } })
    const next = events.reduce(evolveInstance, state)
    t.equal(next.featureTypes.get('release')!.lifetimeDays, 10)
    const zero = valueOf(decideInstance(next, { type: 'featureType.setLifetime', id: 'release', lifetimeDays: 0, meta }, noProjects))
    t.equal(zero.reduce(evolveInstance, next).featureTypes.get('release')!.lifetimeDays, null)
    t.same(valueOf(decideInstance(state, { type: 'featureType.setLifetime', id: 'release', lifetimeDays: 40, meta }, noProjects)), [], 'unchanged: no event')
    assertError(t, errorOf(decideInstance(state, { type: 'featureType.setLifetime', id: 'nope', lifetimeDays: 3, meta }, noProjects)), 'NotFoundError', 404)
  })
})

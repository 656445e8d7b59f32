import t from 'tap'
import { isFavoriteOf } from '../../src/domain/favorites.js'
import { Scenario, assertError, errorOf, typesOf } from './fixtures/scenario.js'

const shop = () => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'checkout')
  return s
}

t.test('favoriting a flag is per caller and emits feature-favorited / feature-unfavorited once per change', async (t) => {
  const s = shop()
  const on = s.ok('web', { type: 'favorite.feature', feature: 'checkout', userKey: 'user:7', favorite: true })
  t.same(typesOf(on), ['feature-favorited'])
  t.match(on[0], { project: 'web', featureName: 'checkout', data: { feature: 'checkout', userKey: 'user:7' } })
  t.ok(isFavoriteOf(s.feature('web', 'checkout').favoritedBy, 'user:7'))
  t.notOk(isFavoriteOf(s.feature('web', 'checkout').favoritedBy, 'token:admin'), 'another caller does not see it as a favorite')
  t.same(s.ok('web', { type: 'favorite.feature', feature: 'checkout', userKey: 'user:7', favorite: true }), [], 'again: nothing changes')
  s.ok('web', { type: 'favorite.feature', feature: 'checkout', userKey: 'token:admin', favorite: true })
  const off = s.ok('web', { type: 'favorite.feature', feature: 'checkout', userKey: 'user:7', favorite: false })
  t.same(typesOf(off), ['feature-unfavorited'])
  t.same(s.feature('web', 'checkout').favoritedBy, ['token:admin'])
  t.same(s.ok('web', { type: 'favorite.feature', feature: 'checkout', userKey: 'user:7', favorite: false }), [])
})

t.test('favoriting an unknown flag is a 404', async (t) => {
  const s = shop()
  assertError(t, errorOf(s.decide('web', { type: 'favorite.feature', feature: 'nope', userKey: 'user:7', favorite: true })), 'NotFoundError', 404)
})

t.test('favoriting a project emits project-favorited / project-unfavorited', async (t) => {
  const s = shop()
  const on = s.ok('web', { type: 'favorite.project', userKey: 'user:7', favorite: true })
  t.same(typesOf(on), ['project-favorited'])
  t.match(on[0], { project: 'web', data: { project: 'web', userKey: 'user:7' } })
  t.ok(isFavoriteOf(s.project('web').favoritedBy, 'user:7'))
  t.same(typesOf(s.ok('web', { type: 'favorite.project', userKey: 'user:7', favorite: false })), ['project-unfavorited'])
  t.notOk(isFavoriteOf(s.project('web').favoritedBy, 'user:7'))
  t.notOk(isFavoriteOf(s.project('web').favoritedBy, undefined), 'no caller, no favorite')
})

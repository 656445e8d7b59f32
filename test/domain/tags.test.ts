import t from 'tap'
import { noProjects } from '../../src/actors/instance.machine.js'
import * as v from 'valibot'
import type { TagWorld } from '../../src/domain/feature-tags.js'
import { decideInstance, evolveInstance } from '../../src/domain/instance.js'
import { emptyInstance, type InstanceState } from '../../src/domain/instance-state.js'
import { withFeatureTags } from '../../src/domain/event-tags.js'
import { featureTagSchema, tagTypeSchema, updateFeatureTagsSchema } from '../../src/schemas/tags.js'
import { Scenario, assertError, errorOf, typesOf, valueOf } from './fixtures/scenario.js'
import type { EventDraft } from '../../src/domain/events.js'

const meta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'tester', userId: 7 } }

// Tag types a test says exist.
const tagWorld = (types: string[] = ['simple'], _existing: string[] = []): TagWorld => ({
  tagTypeExists: (type) => types.includes(type),
})

const shop = () => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'checkout')
  return s
}

const tag = (type: string, value: string) => ({ type, value })
const tagOf = (event: EventDraft) => (event.type === 'feature-tagged' ? event.data : event.type === 'feature-untagged' ? event.preData : tag('', ''))

t.test('tag values and types are 2 to 50 characters; the type is URL friendly and defaults to simple', async (t) => {
  t.same(v.parse(featureTagSchema, { value: 'team-a' }), { value: 'team-a', type: 'simple' })
  for (const bad of [{ value: 'a' }, { value: 'x'.repeat(51) }, { value: 'ok', type: 'a' }, { value: 'ok', type: 'has space' }, { value: 'ok', type: 'y'.repeat(51) }]) {
    t.notOk(v.safeParse(featureTagSchema, bad).success, `${JSON.stringify(bad).slice(0, 40)} is refused`)
  }
  t.ok(v.safeParse(featureTagSchema, { value: 'x'.repeat(50), type: 'y'.repeat(50) }).success, '50 characters are fine')
  t.notOk(v.safeParse(tagTypeSchema, { name: 'x' }).success, 'a one-character tag type name is refused')
  t.ok(Array.isArray(v.parse(updateFeatureTagsSchema, [{ value: 'aa' }])), 'PUT takes an array (the new set)')
  t.same(v.parse(updateFeatureTagsSchema, { addedTags: [{ value: 'aa' }] }), { addedTags: [{ value: 'aa', type: 'simple' }], removedTags: [] })
})

t.test('tagging a flag', async (t) => {
  t.test('tagging emits feature-tagged, and the flag carries it', async (t) => {
    const s = shop()
    const events = s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    t.same(typesOf(events), ['feature-tagged'], 'tag-created is the instance\'s (tags.ensure)')
    t.match(events[0], { project: 'web', featureName: 'checkout', data: { type: 'simple', value: 'team-a' } })
    t.same(s.feature('web', 'checkout').tags, [tag('simple', 'team-a')])
  })

  // Unleash 8.2 side by side: re-adding a tag the flag has logs a second feature-tagged.
  t.test('tagging twice records feature-tagged twice; the flag carries the tag once', async (t) => {
    const s = shop()
    s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    t.same(typesOf(s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })), ['feature-tagged'])
    t.equal(s.feature('web', 'checkout').tags.length, 1)
  })

  t.test("an unknown tag type is a 400 naming it", async (t) => {
    const s = shop()
    const error = errorOf(s.decide('web', { type: 'tag.add', feature: 'checkout', tag: tag('team', 'a1'), tags: tagWorld() }))
    assertError(t, error, 'BadDataError', 400, "Tag type 'team' does not exist")
  })

  t.test('an unknown flag is a 404', async (t) => {
    const s = shop()
    assertError(t, errorOf(s.decide('web', { type: 'tag.add', feature: 'nope', tag: tag('simple', 'aa'), tags: tagWorld() })), 'NotFoundError', 404)
  })

  // Unleash 8.2 side by side: untagging what is not there still records feature-untagged.
  t.test('untagging emits feature-untagged with the tag as preData, also for a tag the flag does not carry', async (t) => {
    const s = shop()
    s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    const events = s.ok('web', { type: 'tag.remove', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    t.same(typesOf(events), ['feature-untagged'])
    t.same(events[0].preData, { type: 'simple', value: 'team-a' })
    t.same(s.feature('web', 'checkout').tags, [])
    t.same(typesOf(s.ok('web', { type: 'tag.remove', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })), ['feature-untagged'])
  })

  t.test('PUT with a set replaces the tags: additions first, then removals; unchanged tags emit nothing', async (t) => {
    const s = shop()
    const world = tagWorld(['simple', 'team'])
    s.ok('web', { type: 'tags.update', feature: 'checkout', update: { set: [tag('simple', 'keep'), tag('simple', 'drop')] }, tags: world })
    const events = s.ok('web', { type: 'tags.update', feature: 'checkout', update: { set: [tag('simple', 'keep'), tag('team', 'new')] }, tags: world })
    t.same(typesOf(events), ['feature-tagged', 'feature-untagged'])
    t.same(s.feature('web', 'checkout').tags, [tag('simple', 'keep'), tag('team', 'new')])
  })

  // Unleash 8.2 side by side: every added tag (feature-tagged), then every removed one (feature-untagged);
  // a tag both added and removed ends removed.
  t.test('PUT with {addedTags, removedTags} adds, then removes', async (t) => {
    const s = shop()
    s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'old'), tags: tagWorld() })
    const events = s.ok('web', {
      type: 'tags.update',
      feature: 'checkout',
      update: { changes: { added: [tag('simple', 'new'), tag('simple', 'both')], removed: [tag('simple', 'old'), tag('simple', 'both')] } },
      tags: tagWorld(),
    })
    t.same(events.map((e) => [e.type, tagOf(e).value]), [
      ['feature-tagged', 'new'],
      ['feature-tagged', 'both'],
      ['feature-untagged', 'old'],
      ['feature-untagged', 'both'],
    ])
    t.same(s.feature('web', 'checkout').tags, [tag('simple', 'new')])
  })

  // Unleash 8.2 side by side (PUT /api/admin/projects/:p/tags): every flag's additions, flag by flag, then every flag's removals.
  t.test('bulk tagging records the additions of every flag, then the removals of every flag', async (t) => {
    const s = shop()
    s.createFeature('web', 'cart')
    const events = s.ok('web', { type: 'tags.bulkUpdate', features: ['checkout', 'cart'], changes: { added: [tag('simple', 'q3'), tag('simple', 'q4')], removed: [tag('simple', 'q2')] }, tags: tagWorld() })
    t.same(events.map((e) => [e.type, e.featureName, tagOf(e).value]), [
      ['feature-tagged', 'checkout', 'q3'],
      ['feature-tagged', 'checkout', 'q4'],
      ['feature-tagged', 'cart', 'q3'],
      ['feature-tagged', 'cart', 'q4'],
      ['feature-untagged', 'checkout', 'q2'],
      ['feature-untagged', 'cart', 'q2'],
    ])
    const error = errorOf(s.decide('web', { type: 'tags.bulkUpdate', features: ['elsewhere'], changes: { added: [], removed: [] }, tags: tagWorld() }))
    assertError(t, error, 'BadDataError', 400, 'Tried to change tags of feature not belonging to project')
  })

  t.test("dropping a tag type untags every flag that carries one of its tags", async (t) => {
    const s = shop()
    s.createFeature('web', 'cart')
    const world = tagWorld(['simple', 'team'])
    s.ok('web', { type: 'tags.update', feature: 'checkout', update: { set: [tag('team', 'aa'), tag('simple', 'bb')] }, tags: world })
    s.ok('web', { type: 'tag.add', feature: 'cart', tag: tag('team', 'cc'), tags: world })
    const events = s.ok('web', { type: 'tags.dropType', tagType: 'team' })
    t.same(typesOf(events), ['feature-untagged', 'feature-untagged'])
    t.same(s.feature('web', 'checkout').tags, [tag('simple', 'bb')])
    t.same(s.feature('web', 'cart').tags, [])
  })
})

t.test("events about a flag get the flag's tags as they are after the command (SEMANTICS 9.1)", async (t) => {
  const s = shop()
  s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
  const events = s.ok('web', { type: 'feature.setStale', names: ['checkout'], stale: true })
  const [stale] = withFeatureTags(events, s.project('web'))
  t.same(stale.tags, [tag('simple', 'team-a')])
  const own = withFeatureTags([{ ...events[0], tags: [tag('simple', 'mine')] }], s.project('web'))
  t.same(own[0].tags, [tag('simple', 'mine')], 'an event with its own tags keeps them')
  const untagged = s.ok('web', { type: 'tag.remove', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
  t.same(withFeatureTags(untagged, s.project('web'))[0].tags, [], 'after untagging, the flag has no tags left')
  const projectEvent = withFeatureTags([{ ...events[0], featureName: undefined }], s.project('web'))
  t.equal(projectEvent[0].tags, undefined, 'events without a featureName are left alone')
})

t.test('tag types (instance)', async (t) => {
  const apply = (state: InstanceState, command: Parameters<typeof decideInstance>[1]) => {
    const result = decideInstance(state, command, noProjects)
    return { result, state: result.ok ? result.value.reduce(evolveInstance, state) : state }
  }

  t.test('simple exists from the first start', async (t) => {
    t.same(emptyInstance().tagTypes.get('simple'), { name: 'simple', description: 'Used to simplify filtering of features', icon: '#' })
  })

  t.test('create, update, delete emit tag-type-created/-updated/-deleted with replayable data', async (t) => {
    let state = emptyInstance()
    const created = apply(state, { type: 'tagType.create', input: v.parse(tagTypeSchema, { name: 'team', description: 'Owning team' }), meta })
    t.same(typesOf(valueOf(created.result)), ['tag-type-created'])
    state = created.state
    t.same(state.tagTypes.get('team'), { name: 'team', description: 'Owning team', icon: null })
    const duplicate = errorOf(decideInstance(state, { type: 'tagType.create', input: v.parse(tagTypeSchema, { name: 'team' }), meta }, noProjects))
    assertError(t, duplicate, 'NameExistsError', 409, 'There already exists a tag-type with the name team')
    const updated = apply(state, { type: 'tagType.update', name: 'team', input: { description: 'Team', icon: 'T' }, meta })
    t.match(valueOf(updated.result)[0], { type: 'tag-type-updated', data: { name: 'team', description: 'Team', icon: 'T' }, preData: { description: 'Owning team' } })
    state = updated.state
    t.same(valueOf(decideInstance(state, { type: 'tagType.update', name: 'team', input: { description: 'Team', icon: 'T' }, meta }, noProjects)), [], 'no change, no event')
    assertError(t, errorOf(decideInstance(state, { type: 'tagType.update', name: 'nope', input: {}, meta }, noProjects)), 'NotFoundError', 404, 'Tagtype nope could not be found')
    const deleted = apply(state, { type: 'tagType.delete', name: 'team', inUse: false, meta })
    t.match(valueOf(deleted.result)[0], { type: 'tag-type-deleted', preData: { name: 'team' } })
    t.notOk(deleted.state.tagTypes.has('team'))
    t.equal(errorOf(decideInstance(updated.state, { type: 'tagType.delete', name: 'team', inUse: true, meta }, noProjects)).kind, 'ConflictError', 'a type still in use is not deleted')
  })
})

t.test('tags the instance knows (Unleash\'s tags table)', async (t) => {
  t.test('a tag new to the instance is created once, before a flag carries it', async (t) => {
    const events = valueOf(decideInstance(emptyInstance(), { type: 'tags.ensure', tags: [tag('simple', 'aa'), tag('simple', 'aa'), tag('simple', 'bb')], meta }, noProjects))
    t.same(events.map((e) => [e.type, e.data]), [['tag-created', tag('simple', 'aa')], ['tag-created', tag('simple', 'bb')]])
    const state = events.reduce(evolveInstance, emptyInstance())
    t.same(valueOf(decideInstance(state, { type: 'tags.ensure', tags: [tag('simple', 'aa')], meta }, noProjects)), [], 'a known tag is not created again')
    assertError(t, errorOf(decideInstance(state, { type: 'tags.ensure', tags: [tag('team', 'aa')], meta }, noProjects)), 'BadDataError', 400, "Tag type 'team' does not exist")
  })

  t.test('deleting a tag type deletes its tags', async (t) => {
    let state = valueOf(decideInstance(emptyInstance(), { type: 'tagType.create', input: v.parse(tagTypeSchema, { name: 'team' }), meta }, noProjects)).reduce(evolveInstance, emptyInstance())
    state = valueOf(decideInstance(state, { type: 'tags.ensure', tags: [tag('team', 'aa'), tag('simple', 'bb')], meta }, noProjects)).reduce(evolveInstance, state)
    state = valueOf(decideInstance(state, { type: 'tagType.delete', name: 'team', inUse: false, meta }, noProjects)).reduce(evolveInstance, state)
    t.same([...state.tags.values()], [tag('simple', 'bb')])
  })
})

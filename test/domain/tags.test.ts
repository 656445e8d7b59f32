import t from 'tap'
import * as v from 'valibot'
import type { TagWorld } from '../../src/domain/feature-tags.js'
import { decideInstance, evolveInstance } from '../../src/domain/instance.js'
import { emptyInstance, type InstanceState } from '../../src/domain/instance-state.js'
import { withFeatureTags } from '../../src/domain/event-tags.js'
import { featureTagSchema, tagTypeSchema, updateFeatureTagsSchema } from '../../src/schemas/tags.js'
import { Scenario, assertError, errorOf, typesOf, valueOf } from './fixtures/scenario.js'

const meta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'tester', userId: 7 } }

// Tag types a test says exist, and tags that some flag elsewhere already carries.
const tagWorld = (types: string[] = ['simple'], existing: string[] = []): TagWorld => ({
  tagTypeExists: (type) => types.includes(type),
  tagExists: (tag) => existing.includes(`${tag.type}:${tag.value}`),
})

const shop = () => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'checkout')
  return s
}

const tag = (type: string, value: string) => ({ type, value })

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
  t.test('a new tag emits tag-created then feature-tagged, and the flag carries it', async (t) => {
    const s = shop()
    const events = s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    t.same(typesOf(events), ['tag-created', 'feature-tagged'])
    t.same(events[0].data, { type: 'simple', value: 'team-a' })
    t.equal(events[0].project, undefined, 'tag-created belongs to no project (as in Unleash)')
    t.match(events[1], { project: 'web', featureName: 'checkout', data: { type: 'simple', value: 'team-a' } })
    t.same(s.feature('web', 'checkout').tags, [tag('simple', 'team-a')])
  })

  t.test('a tag some flag already carries is not created again', async (t) => {
    const s = shop()
    const events = s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld(['simple'], ['simple:team-a']) })
    t.same(typesOf(events), ['feature-tagged'])
  })

  t.test('tagging twice is idempotent: no second event', async (t) => {
    const s = shop()
    s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    t.same(s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld(['simple'], ['simple:team-a']) }), [])
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

  t.test('untagging emits feature-untagged with the tag as preData; untagging what is not there emits nothing', async (t) => {
    const s = shop()
    s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    const events = s.ok('web', { type: 'tag.remove', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() })
    t.same(typesOf(events), ['feature-untagged'])
    t.same(events[0].preData, { type: 'simple', value: 'team-a' })
    t.same(s.feature('web', 'checkout').tags, [])
    t.same(s.ok('web', { type: 'tag.remove', feature: 'checkout', tag: tag('simple', 'team-a'), tags: tagWorld() }), [])
  })

  t.test('PUT with a set replaces the tags: removals first, then additions; unchanged tags emit nothing', async (t) => {
    const s = shop()
    const world = tagWorld(['simple', 'team'])
    s.ok('web', { type: 'tags.update', feature: 'checkout', update: { set: [tag('simple', 'keep'), tag('simple', 'drop')] }, tags: world })
    const events = s.ok('web', { type: 'tags.update', feature: 'checkout', update: { set: [tag('simple', 'keep'), tag('team', 'new')] }, tags: world })
    t.same(typesOf(events), ['feature-untagged', 'tag-created', 'feature-tagged'])
    t.same(s.feature('web', 'checkout').tags, [tag('simple', 'keep'), tag('team', 'new')])
  })

  t.test('PUT with {addedTags, removedTags} applies both', async (t) => {
    const s = shop()
    s.ok('web', { type: 'tag.add', feature: 'checkout', tag: tag('simple', 'old'), tags: tagWorld() })
    const events = s.ok('web', {
      type: 'tags.update',
      feature: 'checkout',
      update: { changes: { added: [tag('simple', 'new')], removed: [tag('simple', 'old')] } },
      tags: tagWorld(['simple'], ['simple:old']),
    })
    t.same(typesOf(events), ['feature-untagged', 'tag-created', 'feature-tagged'])
    t.same(s.feature('web', 'checkout').tags, [tag('simple', 'new')])
  })

  t.test('bulk tagging several flags creates a new tag once', async (t) => {
    const s = shop()
    s.createFeature('web', 'cart')
    const events = s.ok('web', { type: 'tags.bulkUpdate', features: ['checkout', 'cart'], changes: { added: [tag('simple', 'q3')], removed: [] }, tags: tagWorld() })
    t.same(typesOf(events), ['tag-created', 'feature-tagged', 'feature-tagged'])
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
    const result = decideInstance(state, command)
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
    const duplicate = errorOf(decideInstance(state, { type: 'tagType.create', input: v.parse(tagTypeSchema, { name: 'team' }), meta }))
    assertError(t, duplicate, 'NameExistsError', 409, 'There already exists a tag-type with the name team')
    const updated = apply(state, { type: 'tagType.update', name: 'team', input: { description: 'Team', icon: 'T' }, meta })
    t.match(valueOf(updated.result)[0], { type: 'tag-type-updated', data: { name: 'team', description: 'Team', icon: 'T' }, preData: { description: 'Owning team' } })
    state = updated.state
    t.same(valueOf(decideInstance(state, { type: 'tagType.update', name: 'team', input: { description: 'Team', icon: 'T' }, meta })), [], 'no change, no event')
    assertError(t, errorOf(decideInstance(state, { type: 'tagType.update', name: 'nope', input: {}, meta })), 'NotFoundError', 404, 'Tagtype nope could not be found')
    const deleted = apply(state, { type: 'tagType.delete', name: 'team', inUse: false, meta })
    t.match(valueOf(deleted.result)[0], { type: 'tag-type-deleted', preData: { name: 'team' } })
    t.notOk(deleted.state.tagTypes.has('team'))
    t.equal(errorOf(decideInstance(updated.state, { type: 'tagType.delete', name: 'team', inUse: true, meta })).kind, 'ConflictError', 'a type still in use is not deleted')
  })
})

import t from 'tap'
import { afterOf, beforeOf } from '../src/lib/change-diff.js'
import { diffJson } from '../src/lib/diff.js'

t.test("afterOf: a deletion has no after side; Unleash's payload.snapshot is not part of the change", async (t) => {
  t.equal(afterOf({ action: 'deleteStrategy', payload: { id: 's1', snapshot: { id: 's1' } } }), null)
  t.equal(afterOf({ action: 'deleteSegment', payload: { id: 3 } }), null)
  t.same(afterOf({ action: 'updateStrategy', payload: { id: 's1', name: 'default', snapshot: { id: 's1', name: 'old' } } }), { id: 's1', name: 'default' })
  t.same(afterOf({ action: 'reorderStrategy', payload: [{ id: 's1', sortOrder: 0 }] }), [{ id: 's1', sortOrder: 0 }], 'an array payload as it is')
})

t.test('beforeOf puts what a change replaced in the shape of its payload', async (t) => {
  t.equal(beforeOf({ action: 'addStrategy', payload: { name: 'default' } }, undefined), null, 'nothing replaced')
  t.same(beforeOf({ action: 'patchVariant', payload: { variants: [] } }, [{ name: 'blue' }]), { variants: [{ name: 'blue' }] })
  const dependency = { feature: 'parent', enabled: true, variants: [] }
  t.same(beforeOf({ action: 'addDependency', payload: { feature: 'other', enabled: true } }, [dependency]), dependency, "a flag's one parent as itself")
  t.same(beforeOf({ action: 'updateSegment', payload: { id: 3, name: 'n', constraints: [] } }, { id: 3, name: 'n', description: null, project: null, constraints: [{ values: ['u1'] }], createdAt: 'x', createdBy: 'y' }),
    { name: 'n', description: null, project: null, constraints: [{ values: ['u1'] }] }, 'a segment as the fields a segment change sets')
  const strategy = { id: 's1', name: 'flexibleRollout', title: 'half', sortOrder: 2, parameters: { rollout: '25' } }
  const update = { action: 'updateStrategy', payload: { id: 's1', name: 'flexibleRollout', parameters: { rollout: '50' }, snapshot: strategy } }
  t.same(diffJson(beforeOf(update, strategy), afterOf(update)), [{ path: 'parameters.rollout', kind: 'changed', before: '25', after: '50' }],
    'an update is diffed on the fields it sets: the title and order it leaves out are kept, not removed')
})

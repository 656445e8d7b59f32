import t from 'tap'
import { PatchError, applyJsonPatch } from '../../src/domain/json-patch.js'
import type { JsonPatch } from '../../src/schemas/features.js'

// The error a patch throws, for an instanceof check (tap's throws() matches fields, not classes).
const thrownBy = (run: () => unknown): unknown => {
  try {
    run()
  } catch (error) {
    return error
  }
  return undefined
}

const document = () => ({ name: 'checkout', tags: ['a', 'b'], nested: { x: 1, 'a/b': 2, 'm~n': 3 }, nothing: null as null | string })

// RFC 6902 (and the JSON pointers of RFC 6901).
t.test('operations', async (t) => {
  const rows: [string, JsonPatch, unknown][] = [
    ['add a member', [{ op: 'add', path: '/description', value: 'd' }], { ...document(), description: 'd' }],
    ['add replaces an existing member', [{ op: 'add', path: '/name', value: 'other' }], { ...document(), name: 'other' }],
    ['add inserts into an array', [{ op: 'add', path: '/tags/1', value: 'x' }], { ...document(), tags: ['a', 'x', 'b'] }],
    ['add appends with -', [{ op: 'add', path: '/tags/-', value: 'c' }], { ...document(), tags: ['a', 'b', 'c'] }],
    ['add at the array end index', [{ op: 'add', path: '/tags/2', value: 'c' }], { ...document(), tags: ['a', 'b', 'c'] }],
    ['remove a member', [{ op: 'remove', path: '/nothing' }], { name: 'checkout', tags: ['a', 'b'], nested: { x: 1, 'a/b': 2, 'm~n': 3 } }],
    ['remove from an array', [{ op: 'remove', path: '/tags/0' }], { ...document(), tags: ['b'] }],
    ['replace a member', [{ op: 'replace', path: '/nothing', value: 'now' }], { ...document(), nothing: 'now' }],
    ['replace in an array', [{ op: 'replace', path: '/tags/1', value: 'z' }], { ...document(), tags: ['a', 'z'] }],
    ['replace the whole document', [{ op: 'replace', path: '', value: { a: 1 } }], { a: 1 }],
    ['move a member', [{ op: 'move', from: '/name', path: '/title' }], { tags: ['a', 'b'], nested: { x: 1, 'a/b': 2, 'm~n': 3 }, nothing: null, title: 'checkout' }],
    ['move within an array', [{ op: 'move', from: '/tags/0', path: '/tags/-' }], { ...document(), tags: ['b', 'a'] }],
    ['copy a member', [{ op: 'copy', from: '/nested/x', path: '/x' }], { ...document(), x: 1 }],
    ['copy is deep', [{ op: 'copy', from: '/tags', path: '/copy' }, { op: 'add', path: '/copy/-', value: 'c' }], { ...document(), copy: ['a', 'b', 'c'] }],
    ['test that passes', [{ op: 'test', path: '/tags', value: ['a', 'b'] }], document()],
    ['~1 is a slash', [{ op: 'replace', path: '/nested/a~1b', value: 20 }], { ...document(), nested: { x: 1, 'a/b': 20, 'm~n': 3 } }],
    ['~0 is a tilde', [{ op: 'remove', path: '/nested/m~0n' }], { ...document(), nested: { x: 1, 'a/b': 2 } }],
    ['operations apply in order', [{ op: 'add', path: '/n', value: 1 }, { op: 'test', path: '/n', value: 1 }, { op: 'remove', path: '/n' }], document()],
  ]
  for (const [name, patch, expected] of rows) t.same(applyJsonPatch(document(), patch), expected, name)
})

t.test('failures throw a PatchError', async (t) => {
  const rows: [string, JsonPatch][] = [
    ['remove a missing member', [{ op: 'remove', path: '/missing' }]],
    ['replace a missing member', [{ op: 'replace', path: '/missing', value: 1 }]],
    ['add below a missing member', [{ op: 'add', path: '/missing/x', value: 1 }]],
    ['an index past the end', [{ op: 'add', path: '/tags/3', value: 'x' }]],
    ['an index with a leading zero', [{ op: 'replace', path: '/tags/01', value: 'x' }]],
    ['- is not an index to replace', [{ op: 'replace', path: '/tags/-', value: 'x' }]],
    ['a pointer without a leading slash', [{ op: 'add', path: 'name', value: 'x' }]],
    ['move into its own child', [{ op: 'move', from: '/nested', path: '/nested/child' }]],
    ['move from a missing member', [{ op: 'move', from: '/missing', path: '/x' }]],
    ['copy from a missing member', [{ op: 'copy', from: '/missing', path: '/x' }]],
    ['test that fails', [{ op: 'test', path: '/name', value: 'other' }]],
    ['test on a missing member', [{ op: 'test', path: '/missing', value: null }]],
    ['add without a value', [{ op: 'add', path: '/x' }]],
  ]
  for (const [name, patch] of rows) t.ok(thrownBy(() => applyJsonPatch(document(), patch)) instanceof PatchError, name)
})

t.test('a failing test operation leaves the document untouched', async (t) => {
  const original = document()
  const snapshot = structuredClone(original)
  const error = thrownBy(() =>
    applyJsonPatch(original, [
      { op: 'replace', path: '/name', value: 'changed' },
      { op: 'add', path: '/tags/-', value: 'c' },
      { op: 'remove', path: '/nested/x' },
      { op: 'test', path: '/name', value: 'checkout' },
    ]),
  )
  t.ok(error instanceof PatchError, 'the test operation fails the patch')
  t.same(original, snapshot, 'nothing of the earlier operations is visible')
})

t.test('a successful patch returns a new document and leaves the input alone', async (t) => {
  const original = document()
  const patched = applyJsonPatch(original, [{ op: 'add', path: '/tags/-', value: 'c' }])
  t.same(original.tags, ['a', 'b'])
  t.same(patched.tags, ['a', 'b', 'c'])
  t.not(patched, original)
})

t.test('values are copied in, not shared', async (t) => {
  const value = { deep: [1] }
  const patched = applyJsonPatch(document() as Record<string, unknown>, [{ op: 'add', path: '/v', value }])
  value.deep.push(2)
  t.same(patched.v, { deep: [1] })
})

t.test('__proto__, constructor and prototype paths are refused', async (t) => {
  const rows: [string, JsonPatch][] = [
    ['add /__proto__/polluted', [{ op: 'add', path: '/__proto__/polluted', value: true }]],
    ['add /__proto__', [{ op: 'add', path: '/__proto__', value: { polluted: true } }]],
    ['replace /__proto__', [{ op: 'replace', path: '/__proto__', value: { polluted: true } }]],
    ['add /constructor/prototype/polluted', [{ op: 'add', path: '/constructor/prototype/polluted', value: true }]],
    ['add /nested/__proto__/polluted', [{ op: 'add', path: '/nested/__proto__/polluted', value: true }]],
    ['add /tags/__proto__', [{ op: 'add', path: '/tags/__proto__', value: true }]],
    ['copy from /__proto__', [{ op: 'copy', from: '/__proto__', path: '/x' }]],
    ['move from /constructor', [{ op: 'move', from: '/constructor', path: '/x' }]],
    ['test /__proto__', [{ op: 'test', path: '/__proto__', value: {} }]],
  ]
  for (const [name, patch] of rows) {
    t.ok(thrownBy(() => applyJsonPatch(document(), patch)) instanceof PatchError, name)
    t.equal(({} as Record<string, unknown>).polluted, undefined, `${name} pollutes nothing`)
    t.equal((Object.prototype as Record<string, unknown>).polluted, undefined)
  }
})

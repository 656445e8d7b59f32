import t from 'tap'
import { canonicalJson } from '../../src/store/canonical.js'

t.test('keys are sorted at every level, whatever order they were written in', async (t) => {
  const a = { type: 'x', data: { b: 1, a: [{ z: 1, y: 2 }] }, id: 3 }
  const b = { id: 3, data: { a: [{ y: 2, z: 1 }], b: 1 }, type: 'x' }
  t.equal(canonicalJson(a), '{"data":{"a":[{"y":2,"z":1}],"b":1},"id":3,"type":"x"}')
  t.equal(canonicalJson(b), canonicalJson(a))
})

t.test('names sort as strings (upper case before lower); integer-like keys come first, in numeric order, as every JavaScript object orders them', async (t) => {
  t.equal(canonicalJson({ b: 1, 10: 'ten', B: 2, 9: 'nine', a: 3 }), '{"9":"nine","10":"ten","B":2,"a":3,"b":1}')
  t.equal(canonicalJson({ 10: 'ten', 9: 'nine' }), canonicalJson({ 9: 'nine', 10: 'ten' }))
})

t.test('the rest is JSON.stringify: arrays keep their order, undefined members are dropped, dates are ISO strings', async (t) => {
  t.equal(canonicalJson({ list: [3, 1, 2], gone: undefined, at: new Date(Date.UTC(2026, 10, 27)) }), '{"at":"2026-11-27T00:00:00.000Z","list":[3,1,2]}')
  t.equal(canonicalJson(undefined), 'null')
  t.equal(canonicalJson('text'), '"text"')
})

t.test('an object already in order and one sorted give the same text, and neither is changed', async (t) => {
  const ordered = { a: 1, b: { c: 2, d: 3 } }
  const unordered = { b: { d: 3, c: 2 }, a: 1 }
  t.equal(canonicalJson(ordered), canonicalJson(unordered))
  t.same(Object.keys(unordered), ['b', 'a'], 'the value given is not reordered')
  t.same(Object.keys(unordered.b), ['d', 'c'])
})

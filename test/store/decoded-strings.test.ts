import t from 'tap'
import { DecodedStrings } from '../../src/store/decoded-strings.js'

const decoded = () => ({
  name: 'flag-1',
  environments: new Map([
    ['development', { enabled: true, strategies: [{ name: 'default', constraints: [], segments: [] }], variants: [] }],
    ['production', { enabled: false, strategies: [{ name: 'default', constraints: [], segments: [] }], variants: [] }],
  ]),
  tags: new Set(['simple:a', 'simple:b']),
  times: new Float64Array([1, 2]),
  createdAt: new Date(Date.UTC(2026, 10, 27)),
  description: 'x'.repeat(500),
})

t.test('the value is unchanged: the same fields, Map and Set entries in their order, typed arrays and dates as they were', async (t) => {
  const value = decoded()
  const { times, createdAt } = value
  const shared = new DecodedStrings().share(value) as ReturnType<typeof decoded>
  t.same(shared, decoded())
  t.same([...shared.environments.keys()], ['development', 'production'])
  t.same([...shared.tags], ['simple:a', 'simple:b'])
  t.equal(shared.times, times, 'a typed array is left as it is')
  t.equal(shared.createdAt, createdAt, 'a date is left as it is')
})

t.test('each short text is held once however often it occurs; texts past 128 characters are not held', async (t) => {
  const strings = new DecodedStrings()
  strings.share(decoded())
  strings.share(decoded())
  // flag-1, development, production, default, simple:a, simple:b (not the 500-character description).
  t.equal(strings.size, 6)
})

t.test('a Map whose keys repeat texts met before is replaced by an equal one; one without keeps its identity', async (t) => {
  const strings = new DecodedStrings()
  const first = new Map([['development', 1]])
  t.equal(strings.share(first), first, 'the first time its keys are new texts')
  const second = new Map([['development', 2], ['other', 3]])
  const shared = strings.share(second) as Map<string, number>
  t.not(shared, second)
  t.same([...shared], [['development', 2], ['other', 3]])
})

t.test('objects of other classes are left as they are, a subclass of Map too', async (t) => {
  class Kept extends Map<string, string> {}
  const kept = new Kept([['development', 'development']])
  const value = { kept }
  const strings = new DecodedStrings()
  strings.share({ first: new Map([['development', 1]]) })
  const shared = strings.share(value) as typeof value
  t.equal(shared.kept, kept)
  t.ok(shared.kept instanceof Kept)
})

t.test('texts that name object machinery (__proto__, constructor, toString, 0) are held and returned like any other', async (t) => {
  const strings = new DecodedStrings()
  const texts = ['__proto__', 'constructor', 'toString', '0', '4294967295']
  const value = { list: [...texts, ...texts] }
  const shared = strings.share(value) as typeof value
  t.same(shared.list, [...texts, ...texts])
  t.equal(strings.size, texts.length)
  t.equal(Object.getPrototypeOf(shared), Object.prototype)
})

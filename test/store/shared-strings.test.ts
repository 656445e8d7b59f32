import t from 'tap'
import { SharedStrings, listHash } from '../../src/store/shared-strings.js'

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
  const shared = new SharedStrings().share(value) as ReturnType<typeof decoded>
  t.same(shared, decoded())
  t.same([...shared.environments.keys()], ['development', 'production'])
  t.same([...shared.tags], ['simple:a', 'simple:b'])
  t.equal(shared.times, times, 'a typed array is left as it is')
  t.equal(shared.createdAt, createdAt, 'a date is left as it is')
})

t.test('each short text is held once however often it occurs; texts past 128 characters are not held', async (t) => {
  const strings = new SharedStrings()
  strings.share(decoded())
  strings.share(decoded())
  // flag-1, development, production, default, simple:a, simple:b (not the 500-character description).
  t.equal(strings.size, 6)
})

t.test('a Map whose keys repeat texts met before is replaced by an equal one; one without keeps its identity', async (t) => {
  const strings = new SharedStrings()
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
  const strings = new SharedStrings()
  strings.share({ first: new Map([['development', 1]]) })
  const shared = strings.share(value) as typeof value
  t.equal(shared.kept, kept)
  t.ok(shared.kept instanceof Kept)
})

t.test('texts that name object machinery (__proto__, constructor, toString, 0) are held and returned like any other', async (t) => {
  const strings = new SharedStrings()
  const texts = ['__proto__', 'constructor', 'toString', '0', '4294967295']
  const value = { list: [...texts, ...texts] }
  const shared = strings.share(value) as typeof value
  t.same(shared.list, [...texts, ...texts])
  t.equal(strings.size, texts.length)
  t.equal(Object.getPrototypeOf(shared), Object.prototype)
})

t.test('an own __proto__ property (as JSON.parse makes one) keeps its value, and the object its prototype', async (t) => {
  const value = JSON.parse('{"__proto__":{"polluted":"yes"},"name":"development"}') as Record<string, unknown>
  const shared = new SharedStrings().share(value) as Record<string, unknown>
  t.equal(Object.getPrototypeOf(shared), Object.prototype)
  t.same(Object.getOwnPropertyDescriptor(shared, '__proto__')?.value, { polluted: 'yes' })
  t.equal(({} as Record<string, unknown>).polluted, undefined)
})

t.test('with keepAtMost the table holds at most that many texts, starting again when full', async (t) => {
  const strings = new SharedStrings({ keepAtMost: 3 })
  strings.share(['a', 'b', 'c', 'a'])
  t.equal(strings.size, 3)
  strings.share('d')
  t.equal(strings.size, 1, 'the fourth text starts a new table')
  strings.share(['d', 'e'])
  t.equal(strings.size, 2)
})

t.test('with exactLists every list is answered with an equal copy, nested ones too; without it lists keep their identity', async (t) => {
  const inner = ['IN', 'NOT_IN']
  const outer = [{ values: inner }, 'x']
  const copied = new SharedStrings({ exactLists: true }).share(outer) as [{ values: string[] }, string]
  t.not(copied, outer)
  t.not(copied[0].values, inner)
  t.same(copied, [{ values: ['IN', 'NOT_IN'] }, 'x'])
  t.same(outer, [{ values: ['IN', 'NOT_IN'] }, 'x'], 'the input is left equal')
  const list = ['a']
  t.equal(new SharedStrings().share(list), list)
})

t.test('with emptyList every empty list, nested ones too, is answered with that list; lists with items keep theirs', async (t) => {
  const none = Object.freeze([]) as unknown as never[]
  const value = decoded()
  const strategies = value.environments.get('development')!.strategies
  const shared = new SharedStrings({ emptyList: none }).share(value) as ReturnType<typeof decoded>
  for (const environment of shared.environments.values()) {
    t.equal(environment.variants, none, 'an environment without variants')
    t.equal(environment.strategies[0].constraints, none, 'a strategy without constraints')
    t.equal(environment.strategies[0].segments, none, 'a strategy without segments')
  }
  t.equal(shared.environments.get('development')!.strategies, strategies, 'a list with items is the same list')
  t.same(shared, decoded(), 'the value is equal to what it was')
  const own: unknown[] = []
  t.equal(new SharedStrings().share(own), own, 'without the option an empty list is left as it is')
})

const constraint = (values: string[]) => ({ contextName: 'country', operator: 'IN', values, inverted: false, caseInsensitive: false })

t.test('with sharedValues equal lists of texts, and equal records holding them, are one value', async (t) => {
  const emptyList = Object.freeze([]) as readonly unknown[]
  const shared = new SharedStrings({ emptyList, sharedValues: true })
  const state = shared.share({
    a: { constraints: [constraint(['no', 'se'])], environment: { enabled: false, strategies: [], variants: [] } },
    b: { constraints: [constraint(['no', 'se'])], environment: { enabled: false, strategies: [], variants: [] } },
    c: { constraints: [constraint(['no', 'dk'])], environment: { enabled: true, strategies: [], variants: [] } },
  }) as Record<string, { constraints: ReturnType<typeof constraint>[]; environment: object }>
  t.equal(state.a.constraints[0], state.b.constraints[0], 'equal constraints: one object')
  t.equal(state.a.constraints[0].values, state.b.constraints[0].values, 'their lists: one list')
  t.not(state.c.constraints[0], state.a.constraints[0], 'other values: another constraint')
  t.equal(state.a.environment, state.b.environment, 'an environment with no strategies, twice: one object')
  t.not(state.c.environment, state.a.environment, 'enabled: another one')
  t.same(state.c, { constraints: [constraint(['no', 'dk'])], environment: { enabled: true, strategies: [], variants: [] } }, 'values unchanged')
  t.not(state.a.constraints, state.b.constraints, 'lists of objects keep their identity')
})

t.test('with sharedValues records of texts alone, records with numbers and long lists keep their identity', async (t) => {
  const shared = new SharedStrings({ sharedValues: true })
  const [first, second] = shared.share([
    { parameters: { rollout: '50', stickiness: 'default' }, weight: { values: ['a'], weight: 5 }, long: Array.from({ length: 40 }, (_, i) => `v${i}`) },
    { parameters: { rollout: '50', stickiness: 'default' }, weight: { values: ['a'], weight: 5 }, long: Array.from({ length: 40 }, (_, i) => `v${i}`) },
  ]) as { parameters: object; weight: { values: string[] }; long: string[] }[]
  t.not(first.parameters, second.parameters, 'texts alone')
  t.not(first.weight, second.weight, 'a number')
  t.equal(first.weight.values, second.weight.values, 'though its list of texts is shared')
  t.not(first.long, second.long, 'a list of 40 texts')
  t.same(first, second)
})

t.test('with sharedValues two lists of equal hash and other texts stay two lists', async (t) => {
  // Found by trying ['c-0'], ['c-1'], ... until two hashes met.
  let pair: [string[], string[]] | undefined
  const seen = new Map<number, string[]>()
  for (let i = 0; pair === undefined; i++) {
    const list = [`c-${i}`]
    const hash = listHash(list)!
    const earlier = seen.get(hash)
    if (earlier) pair = [earlier, list]
    else seen.set(hash, list)
  }
  const shared = new SharedStrings({ sharedValues: true })
  const [a, b, again] = shared.share([[...pair[0]], [...pair[1]], [...pair[0]]]) as string[][]
  t.same([a, b], pair, 'each keeps its texts')
  t.not(a, b)
  t.equal(again, a, 'the first is still found by its texts')
})

t.test('without sharedValues equal records and lists keep their identity', async (t) => {
  const [a, b] = new SharedStrings().share([constraint(['no']), constraint(['no'])]) as ReturnType<typeof constraint>[]
  t.not(a, b)
  t.not(a.values, b.values)
})

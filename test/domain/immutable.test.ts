import t from 'tap'
import { PersistentMap, updateEntry, withEntry, withoutEntry } from '../../src/domain/immutable.js'

const names = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `flag-${from + i}`)

t.test('withEntry adds in insertion order and replaces in place; the older map is unchanged', async (t) => {
  const first = withEntry(new Map([['a', 1], ['b', 2]]), 'c', 3)
  const second = withEntry(first, 'a', 10)
  t.same([...first.entries()], [['a', 1], ['b', 2], ['c', 3]])
  t.same([...second.entries()], [['a', 10], ['b', 2], ['c', 3]], 'a replaced value keeps its place')
  t.equal(second.size, 3)
  t.equal(second.get('a'), 10)
  t.equal(first.get('a'), 1)
  t.equal(second.has('z'), false)
  t.equal(second.get('z'), undefined)
})

t.test('withoutEntry removes a key, keeps the order of the rest, and leaves the older map whole', async (t) => {
  const all = names(200).reduce<ReadonlyMap<string, number>>((map, name, i) => withEntry(map, name, i), new Map())
  let fewer = all
  for (let i = 0; i < 200; i += 3) fewer = withoutEntry(fewer, `flag-${i}`)
  const kept = names(200).filter((_, i) => i % 3 !== 0)
  t.same([...fewer.keys()], kept)
  t.same([...fewer.values()], kept.map((name) => Number(name.slice(5))))
  t.equal(fewer.size, kept.length)
  t.equal(fewer.has('flag-0'), false)
  t.equal(fewer.get('flag-1'), 1)
  t.equal(all.size, 200)
  t.same([...all.keys()], names(200))
  t.equal(withoutEntry(fewer, 'missing'), fewer, 'removing a missing key changes nothing')
})

t.test('removing most keys rebuilds the map without losing or reordering any', async (t) => {
  let map: ReadonlyMap<string, number> = PersistentMap.from(names(1000).map((name, i) => [name, i]))
  for (let i = 0; i < 1000; i++) if (i % 10 !== 7) map = withoutEntry(map, `flag-${i}`)
  map = withEntry(map, 'flag-new', -1)
  t.same([...map.keys()], [...names(1000).filter((_, i) => i % 10 === 7), 'flag-new'])
  t.equal(map.size, 101)
  t.equal(map.get('flag-997'), 997)
})

t.test('numbers and strings that look alike are different keys, as in a Map', async (t) => {
  const map = withEntry(withEntry(new Map<string | number, string>(), 1, 'number'), '1', 'string')
  t.equal(map.get(1), 'number')
  t.equal(map.get('1'), 'string')
  t.equal(map.size, 2)
})

t.test('updateEntry changes only a key that is there', async (t) => {
  const map = PersistentMap.from([['a', 1]])
  t.same([...updateEntry(map, 'a', (v) => v + 1).entries()], [['a', 2]])
  t.equal(updateEntry(map, 'b', (v) => v + 1), map)
})

t.test('forEach and spreading see what entries() sees', async (t) => {
  const map = PersistentMap.from([['x', 1], ['y', 2]])
  const seen: [string, number][] = []
  map.forEach((value, key) => seen.push([key, value]))
  t.same(seen, [['x', 1], ['y', 2]])
  t.same([...map], [['x', 1], ['y', 2]])
  t.same(new Map(map), new Map([['x', 1], ['y', 2]]))
})

t.test('a PersistentMap is a Map to those who ask, and refuses to be changed in place', async (t) => {
  const map = PersistentMap.from([['a', 1]])
  t.ok(map instanceof Map)
  t.same(map, new Map([['a', 1]]), 'deep equality by entries')
  t.throws(() => (map as Map<string, number>).set('b', 2), TypeError)
  t.throws(() => (map as Map<string, number>).delete('a'), TypeError)
  t.throws(() => (map as Map<string, number>).clear(), TypeError)
  t.equal(map.get('a'), 1)
})

t.test('small maps are copied plainly; one that grows past 128 entries becomes persistent', async (t) => {
  let map: ReadonlyMap<string, number> = new Map()
  for (let i = 0; i < 127; i++) map = withEntry(map, `flag-${i}`, i)
  t.notOk(map instanceof PersistentMap, '127 entries: a plain Map')
  map = withEntry(map, 'flag-127', 127)
  map = withEntry(map, 'flag-128', 128)
  t.ok(map instanceof PersistentMap, '129 entries: persistent')
  t.same([...map.keys()], names(129))
})

import t from 'tap'
import { PersistentMap, SmallMap, chunkEntries, keyHashForTests, updateEntry, withEntry, withoutEntry } from '../../src/domain/immutable.js'

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

type Key = string | number
type Version = [ReadonlyMap<Key, number>, [Key, number][]]

// `map` and a plain Map beside it through `steps` random additions, changes and removals (a key from
// `keyOf`), with a version of both kept every `every` steps; `onStep` sees the map after each.
const changedBesideAMap = (
  map: ReadonlyMap<Key, number>,
  options: { seed: number; steps: number; every: number; keyOf: (random: () => number) => Key; onStep?: (map: ReadonlyMap<Key, number>, step: number) => void },
) => {
  let seed = options.seed
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
  const plain = new Map<Key, number>()
  const versions: Version[] = []
  for (let step = 0; step < options.steps; step++) {
    const roll = random()
    const key = options.keyOf(random)
    if (roll < 0.6) {
      map = withEntry(map, key, step)
      plain.set(key, step)
    } else {
      map = withoutEntry(map, key)
      plain.delete(key)
    }
    options.onStep?.(map, step)
    if (step % options.every === 0) versions.push([map, [...plain]])
  }
  return { map, plain, versions }
}

// A plain Map beside the persistent one, through random additions, changes and removals; every earlier
// version is checked again at the end (nothing shared may have changed under it).
t.test('a PersistentMap agrees with a Map through random changes, and its older versions stay as they were', async (t) => {
  const { map, plain, versions } = changedBesideAMap(PersistentMap.from([]), {
    seed: 26,
    steps: 6000,
    every: 500,
    keyOf: (random) => (random() < 0.2 ? Math.floor(random() * 3000) - 100 : `flag-${Math.floor(random() * 3000)}`),
  })
  t.same([...map], [...plain])
  t.equal(map.size, plain.size)
  for (const key of [...plain.keys(), 'missing', -1000]) t.equal(map.get(key), plain.get(key))
  for (const [version, entries] of versions) t.same([...version], entries)
})

t.test('keys whose hashes are equal are told apart', async (t) => {
  const seen = new Map<number, string>()
  const pairs: [string, string][] = []
  for (let i = 0; pairs.length < 3 && i < 2_000_000; i++) {
    const key = `k${i}`
    const hash = keyHashForTests(key)
    const other = seen.get(hash)
    if (other !== undefined) pairs.push([other, key])
    else seen.set(hash, key)
  }
  t.ok(pairs.length > 0, 'colliding keys found')
  let map: ReadonlyMap<string, string> = PersistentMap.from(names(300).map((name) => [name, name]))
  for (const [a, b] of pairs) map = withEntry(withEntry(map, a, `a:${a}`), b, `b:${b}`)
  for (const [a, b] of pairs) {
    t.equal(map.get(a), `a:${a}`)
    t.equal(map.get(b), `b:${b}`)
  }
  const [a, b] = pairs[0]
  const fewer = withoutEntry(map, a)
  t.equal(fewer.has(a), false)
  t.equal(fewer.get(b), `b:${b}`)
  t.equal(map.get(a), `a:${a}`, 'the older version keeps it')
  t.equal(fewer.size, map.size - 1)
  const built = PersistentMap.from([...names(300).map((name): [string, string] => [name, name]), ...pairs.flatMap(([a, b]): [string, string][] => [[a, `a:${a}`], [b, `b:${b}`]])])
  for (const [a, b] of pairs) {
    t.equal(built.get(a), `a:${a}`, 'built in bulk (its nodes cut to length at the end)')
    t.equal(built.get(b), `b:${b}`)
  }
  t.equal(built.get('flag-299'), 'flag-299')
})

t.test('a map keeps its entries in chunks of keys and values, with no array of its own per entry', async (t) => {
  const map = withoutEntry(PersistentMap.from(names(70).map((name, i): [string, number] => [name, i])), 'flag-1')
  const [first, second] = (map as PersistentMap<string, number>).chunkList
  t.equal(first.length, 128, '64 slots: a key and a value each')
  t.same(first.slice(0, 2), ['flag-0', 0])
  t.same(first.slice(4, 6), ['flag-2', 2])
  t.equal(first.filter((item) => Array.isArray(item)).length, 0, 'no pair arrays')
  t.same(chunkEntries(first).slice(0, 3), [['flag-0', 0], undefined, ['flag-2', 2]], 'read back as pairs, the removed slot empty')
  t.same(chunkEntries(second), names(70).slice(64).map((name, i) => [name, 64 + i]))
})

t.test('a map past 2,048 and 65,536 entries (the chunk trie grows a level) keeps every entry in order', async (t) => {
  let map: ReadonlyMap<string, number> = PersistentMap.from(names(2000).map((name, i) => [name, i]))
  for (let i = 2000; i < 70_000; i++) map = withEntry(map, `flag-${i}`, i)
  t.equal(map.size, 70_000)
  t.equal(map.get('flag-0'), 0)
  t.equal(map.get('flag-65600'), 65600)
  let i = 0
  let inOrder = true
  for (const [key, value] of map) inOrder &&= key === `flag-${i}` && value === i++
  t.ok(inOrder)
  t.equal(i, 70_000)
  const rebuilt = PersistentMap.from(map)
  t.same([...rebuilt.keys()].slice(-3), ['flag-69997', 'flag-69998', 'flag-69999'])
})

t.test('a SmallMap agrees with a Map through random changes of a few keys, and its older versions stay as they were', async (t) => {
  const { map, plain, versions } = changedBesideAMap(SmallMap.from([]), {
    seed: 14,
    steps: 400,
    every: 50,
    keyOf: (random) => (random() < 0.3 ? Math.floor(random() * 4) : `env-${Math.floor(random() * 6)}`),
    onStep: (map, step) => t.ok(map instanceof SmallMap, `step ${step} keeps a SmallMap`),
  })
  t.same([...map.entries()], [...plain.entries()])
  t.same([...map.keys()], [...plain.keys()])
  t.same([...map.values()], [...plain.values()])
  t.equal(map.size, plain.size)
  for (const key of [...plain.keys(), 'env-missing', 0, '0', 3, '3']) {
    t.equal(map.get(key), plain.get(key), `get ${typeof key} ${key}`)
    t.equal(map.has(key), plain.has(key), `has ${typeof key} ${key}`)
  }
  const seen: [string | number, number][] = []
  map.forEach((value, key, whole) => {
    t.equal(whole, map)
    seen.push([key, value])
  })
  t.same(seen, [...plain])
  for (const [version, entries] of versions) t.same([...version], entries)
})

t.test('SmallMap.from keeps a repeated key in its first place with its last value, as a Map built from the same entries', async (t) => {
  const entries: [string, number][] = [['production', 1], ['development', 2], ['production', 3]]
  t.same([...SmallMap.from(entries)], [...new Map(entries)])
  t.same([...SmallMap.from(entries)], [['production', 3], ['development', 2]])
})

t.test('a SmallMap finds NaN as a Map does, and without() of a missing key is the same map', async (t) => {
  const map = SmallMap.from<number, string>([[NaN, 'not a number'], [0, 'zero']])
  t.equal(map.get(NaN), 'not a number')
  t.equal(map.get(-0), 'zero')
  t.equal(map.without(7), map)
  t.same([...map.without(NaN)], [[0, 'zero']])
})

t.test('a SmallMap is its items, key then value, and fromItems refuses a list of odd length', async (t) => {
  const map = SmallMap.from([['development', { enabled: true }], ['production', { enabled: false }]])
  t.same(map.items, ['development', { enabled: true }, 'production', { enabled: false }])
  t.same([...SmallMap.fromItems(map.items)], [...map])
  t.throws(() => SmallMap.fromItems(['development']), TypeError)
  t.equal(Object.prototype.toString.call(map), '[object SmallMap]')
})

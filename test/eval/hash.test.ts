import t from 'tap'
import { normalizedStrategyValue, normalizedVariantValue } from 'unleash-client/lib/strategy/util.js'
import { mulberry32 } from '../../bench/lib/seeded-random.js'
import murmurhash3js from 'murmurhash3js'
import { bucketOf, hash32, hashPrefix, normalizedValue, STRATEGY_SEED, VARIANT_SEED } from '../../src/eval/hash.js'

// What a bucket is, asserted by behaviour: known inputs land where SEMANTICS §1.2 and the client
// specification put them, and seeded random inputs land where the real Node SDK puts them.

t.test('murmurhash3 x86 32-bit of "a" with seed 0 is 1009084850 (SEMANTICS §1.2)', async (t) => {
  t.equal(hash32('a', 0), 1009084850)
})

t.test('a strategy bucket of a known key is the one the specification names', async (t) => {
  t.equal(normalizedValue('AB12A:122', 100, STRATEGY_SEED), 23)
  t.equal(normalizedValue('AB12A:155', 100, STRATEGY_SEED), 100)
  t.equal(normalizedValue('Feature.flexibleRollout.10:174', 100, STRATEGY_SEED), 10)
})

t.test('a variant bucket of a known key is the one the specification names', async (t) => {
  t.equal(normalizedValue('Feature.Variants.B:0', 2, VARIANT_SEED), 1)
  t.equal(normalizedValue('Feature.Variants.B:2', 2, VARIANT_SEED), 2)
})

const randomKey = (rand: () => number): string => {
  const alphabet = 'abcXYZ019:._-øǸ€😀 '
  const length = 1 + Math.floor(rand() * 24)
  let key = ''
  for (let i = 0; i < length; i++) key += alphabet[Math.floor(rand() * alphabet.length)]
  return key
}

t.test('10,000 seeded strategy buckets equal the unleash-client SDK\'s', async (t) => {
  const rand = mulberry32(0xb0c4e7)
  let differing = 0
  for (let i = 0; i < 10_000; i++) {
    const groupId = randomKey(rand)
    const id = randomKey(rand)
    if (normalizedValue(`${groupId}:${id}`, 100, STRATEGY_SEED) !== normalizedStrategyValue(id, groupId)) differing++
  }
  t.equal(differing, 0)
})

t.test('10,000 seeded variant buckets equal the unleash-client SDK\'s, for totals 1 to 1000', async (t) => {
  const rand = mulberry32(0x7a41a7)
  let differing = 0
  for (let i = 0; i < 10_000; i++) {
    const groupId = randomKey(rand)
    const id = randomKey(rand)
    const total = 1 + Math.floor(rand() * 1000)
    if (normalizedValue(`${groupId}:${id}`, total, VARIANT_SEED) !== normalizedVariantValue(id, groupId, total)) differing++
  }
  t.equal(differing, 0)
})

t.test('non-ASCII keys keep the murmurhash3js quirk (low byte of each UTF-16 unit)', async (t) => {
  // 'ø' is U+00F8 and 'Ǹ' is U+01F8: same low byte, same bucket, in ours and in the SDK.
  t.equal(normalizedValue('g:ø', 100, STRATEGY_SEED), normalizedValue('g:Ǹ', 100, STRATEGY_SEED))
  t.equal(normalizedStrategyValue('ø', 'g'), normalizedStrategyValue('Ǹ', 'g'))
})

t.test('hash32 equals murmurhash3js for 20,000 seeded keys of every length from 0 to 40, any seed', async (t) => {
  const rand = mulberry32(0x5eed)
  let differing = 0
  for (let i = 0; i < 20_000; i++) {
    const length = i % 41
    let key = ''
    for (let j = 0; j < length; j++) key += String.fromCharCode(rand() < 0.8 ? 32 + Math.floor(rand() * 95) : Math.floor(rand() * 0xffff))
    const seed = i % 3 === 0 ? 0 : i % 3 === 1 ? VARIANT_SEED : Math.floor(rand() * 2 ** 32)
    if (hash32(key, seed) !== murmurhash3js.x86.hash32(key, seed)) differing++
  }
  t.equal(differing, 0)
})

t.test('a prefix hashed once gives the bucket of prefix + id, for prefixes of 0 to 9 characters and normalizers 100, 1000 and others', async (t) => {
  const rand = mulberry32(0x9f1)
  let differing = 0
  for (let i = 0; i < 10_000; i++) {
    const prefix = randomKey(rand).slice(0, i % 10)
    const id = i % 7 === 0 ? '' : randomKey(rand)
    const seed = i % 2 === 0 ? STRATEGY_SEED : VARIANT_SEED
    // 100 and 1000 divide by constants (rollouts, variants), the rest by the number given.
    const normalizer = i % 3 === 0 ? 100 : i % 3 === 1 ? 1000 : 1 + Math.floor(rand() * 1000)
    const { state, before, head, headLength } = hashPrefix(prefix, seed)
    if (bucketOf(state, before, head, headLength, id, normalizer) !== normalizedValue(`${prefix}${id}`, normalizer, seed)) differing++
  }
  t.equal(differing, 0)
})

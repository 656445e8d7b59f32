import t from 'tap'
import { hash32, normalizedValue, STRATEGY_SEED, VARIANT_SEED } from '../../src/eval/hash.js'

// Vectors of SEMANTICS §1.2.
t.test('murmurhash3 x86 32-bit of "a" with seed 0', async (t) => {
  t.equal(hash32('a', 0), 1009084850)
})

t.test('strategy buckets use seed 0 and 1..100', async (t) => {
  t.equal(STRATEGY_SEED, 0)
  t.equal(normalizedValue('AB12A:122', 100, STRATEGY_SEED), 23)
  t.equal(normalizedValue('AB12A:155', 100, STRATEGY_SEED), 100)
  t.equal(normalizedValue('Feature.flexibleRollout.10:174', 100, STRATEGY_SEED), 10)
})

t.test('variant buckets use seed 86028157 and 1..total weight', async (t) => {
  t.equal(VARIANT_SEED, 86028157)
  t.equal(hash32('Feature.Variants.B:0', VARIANT_SEED), 3067984052)
  t.equal(normalizedValue('Feature.Variants.B:0', 2, VARIANT_SEED), 1)
  t.equal(normalizedValue('Feature.Variants.B:2', 2, VARIANT_SEED), 2)
})

t.test('non-ASCII keys keep the murmurhash3js quirk (low byte of each UTF-16 unit)', async (t) => {
  // 'ø' is U+00F8 and 'Ǹ' is U+01F8: same low byte, same hash.
  t.equal(hash32('ø', 0), hash32('Ǹ', 0))
  t.equal(normalizedValue('g:ø', 100, STRATEGY_SEED), normalizedValue('g:Ǹ', 100, STRATEGY_SEED))
})

// Unleash: SDK strategy/util.ts. murmurhash3js reads `charCodeAt(i) & 0xff`
// over the UTF-16 length, so non-ASCII keys hash unlike standard MurmurHash3;
// only its arithmetic is reproduced here (test/eval/hash.test.ts compares it
// with the package and the SDK).
//
// MurmurHash3 x86 32-bit with Math.imul, where murmurhash3js multiplies in
// 16-bit halves (the same product modulo 2^32: every later step reads its
// operands as 32-bit integers). A bucket is always `${prefix}${id}` with a
// prefix fixed when a strategy or its variants are compiled (`${groupId}:`):
// hashPrefix() hashes the prefix's whole 4-byte blocks once, and each
// evaluation hashes only the rest, from the two strings, with no concatenation.
export const STRATEGY_SEED = 0
export const VARIANT_SEED = 86028157

const c1 = 0xcc9e2d51
const c2 = 0x1b873593

const mixBlock = (h: number, k: number): number => {
  k = Math.imul(k, c1)
  k = (k << 15) | (k >>> 17)
  k = Math.imul(k, c2)
  h ^= k
  h = (h << 13) | (h >>> 19)
  return (Math.imul(h, 5) + 0xe6546b64) | 0
}

const finish = (h: number, k: number, tail: number, length: number): number => {
  if (tail > 0) {
    k = Math.imul(k, c1)
    k = (k << 15) | (k >>> 17)
    k = Math.imul(k, c2)
    h ^= k
  }
  h ^= length
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

// The hash of `head` + `key` (head: at most 3 characters), continuing from state h after `before`
// characters already hashed in whole blocks.
const continueHash = (h: number, before: number, head: string, key: string): number => {
  const headLength = head.length
  const length = headLength + key.length
  const blocks = length - (length & 3)
  let i = 0
  // The first block may straddle the head and the key.
  for (; i < blocks && i < headLength; i += 4) {
    let k = 0
    for (let j = 0; j < 4; j++) {
      const at = i + j
      k |= ((at < headLength ? head.charCodeAt(at) : key.charCodeAt(at - headLength)) & 0xff) << (8 * j)
    }
    h = mixBlock(h, k)
  }
  for (let at = i - headLength; i < blocks; i += 4, at += 4) {
    h = mixBlock(
      h,
      (key.charCodeAt(at) & 0xff) | ((key.charCodeAt(at + 1) & 0xff) << 8) | ((key.charCodeAt(at + 2) & 0xff) << 16) | ((key.charCodeAt(at + 3) & 0xff) << 24),
    )
  }
  let k = 0
  const tail = length & 3
  for (let j = tail - 1; j >= 0; j--) {
    const at = blocks + j
    k ^= ((at < headLength ? head.charCodeAt(at) : key.charCodeAt(at - headLength)) & 0xff) << (8 * j)
  }
  return finish(h, k, tail, before + length)
}

export const hash32 = (key: string, seed: number): number => continueHash(seed || 0, 0, '', key || '')

// key is `${groupId}:${id}`; the result lies in 1..normalizer.
export const normalizedValue = (key: string, normalizer: number, seed: number): number => (hash32(key, seed) % normalizer) + 1

// A prefix hashed once: the state after its whole 4-byte blocks (`state`, over `before` characters) and
// the 0 to 3 bytes left over (`head`, little-endian, `headLength` of them). Plain numbers, so that the
// closure that evaluates a strategy keeps them in its own context: one object less to reach per call.
export interface HashedPrefix {
  readonly state: number
  readonly before: number
  readonly head: number
  readonly headLength: number
}

export const hashPrefix = (prefix: string, seed: number): HashedPrefix => {
  const whole = prefix.length - (prefix.length & 3)
  let h = seed || 0
  for (let i = 0; i < whole; i += 4) {
    h = mixBlock(
      h,
      (prefix.charCodeAt(i) & 0xff) | ((prefix.charCodeAt(i + 1) & 0xff) << 8) | ((prefix.charCodeAt(i + 2) & 0xff) << 16) | ((prefix.charCodeAt(i + 3) & 0xff) << 24),
    )
  }
  let head = 0
  for (let i = whole; i < prefix.length; i++) head |= (prefix.charCodeAt(i) & 0xff) << (8 * (i - whole))
  return { state: h, before: whole, head, headLength: prefix.length - whole }
}

// normalizedValue(prefix + key, normalizer, seed) for the prefix's parts: 1..normalizer.
export const bucketOf = (state: number, before: number, head: number, headLength: number, key: string, normalizer: number): number => {
  let h = state
  const length = headLength + key.length
  const blocks = length - (length & 3)
  let i = 0
  let at = 0
  if (headLength > 0 && blocks > 0) {
    // The first block: the head's bytes, then the key's first characters.
    let k = head
    for (let j = headLength; j < 4; j++) k |= (key.charCodeAt(j - headLength) & 0xff) << (8 * j)
    h = mixBlock(h, k)
    i = 4
    at = 4 - headLength
  }
  for (; i < blocks; i += 4, at += 4) {
    h = mixBlock(
      h,
      (key.charCodeAt(at) & 0xff) | ((key.charCodeAt(at + 1) & 0xff) << 8) | ((key.charCodeAt(at + 2) & 0xff) << 16) | ((key.charCodeAt(at + 3) & 0xff) << 24),
    )
  }
  let k = 0
  const tail = length & 3
  for (let j = 0; j < tail; j++) {
    const index = blocks + j
    k |= (index < headLength ? (head >>> (8 * index)) & 0xff : key.charCodeAt(index - headLength) & 0xff) << (8 * j)
  }
  const hash = finish(h, k, tail, before + length)
  // A constant divisor is a multiplication; any other a division, or a call for a number that is not a
  // whole one (NaN included, as the SDK sums variant weights). Rollouts divide by 100, variants mostly by
  // 1000 (issue 26: a third of a bucket's time).
  return (normalizer === 100 ? hash % 100 : normalizer === 1000 ? hash % 1000 : hash % normalizer) + 1
}

// FNV-1a over the UTF-16 units of text[start, end), from `hash` (fnvBasis to begin): the evaluator's own
// tables (an id list's buckets, shared constraint tests), where no SDK's hash has to be matched.
export const fnvBasis = 0x811c9dc5
export const fnvPrime = 0x01000193

export const fnv1a = (hash: number, text: string, start: number, end: number): number => {
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ text.charCodeAt(i), fnvPrime)
  return hash
}

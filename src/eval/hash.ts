import murmurhash3js from 'murmurhash3js'

// Unleash: SDK strategy/util.ts. murmurhash3js reads `charCodeAt(i) & 0xff`
// over the UTF-16 length, so non-ASCII keys hash unlike standard MurmurHash3;
// only this package reproduces the SDKs' buckets.
export const STRATEGY_SEED = 0
export const VARIANT_SEED = 86028157

export const hash32 = (key: string, seed: number): number => murmurhash3js.x86.hash32(key, seed)

// key is `${groupId}:${id}`; the result lies in 1..normalizer.
export const normalizedValue = (key: string, normalizer: number, seed: number): number =>
  (murmurhash3js.x86.hash32(key, seed) % normalizer) + 1

// mulberry32: a small seeded generator, so that generated data (benchmark flags, fuzzed requests,
// random contexts) is the same on every run. Returns numbers in [0, 1).
export const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}

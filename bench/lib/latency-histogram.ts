// Latencies in whole microseconds, exact below 1,024 µs and within 0.2% above (512 buckets per
// power of two), so histograms from several workers merge by adding counts.
const subBucketBits = 9
const subBuckets = 1 << subBucketBits
const linearLimit = subBuckets * 2
const maxMicros = 0x7fffffff
const bucketCount = linearLimit + (31 - (subBucketBits + 1)) * subBuckets

const indexOf = (micros: number): number => {
  const us = Math.min(maxMicros, Math.max(0, Math.round(micros)))
  if (us < linearLimit) return us
  const exponent = 31 - Math.clz32(us)
  const shift = exponent - subBucketBits
  return linearLimit + (exponent - subBucketBits - 1) * subBuckets + ((us >>> shift) - subBuckets)
}

// The largest value that falls in the bucket: percentiles err on the slow side.
const upperBoundOf = (index: number): number => {
  if (index < linearLimit) return index
  const over = index - linearLimit
  const exponent = Math.floor(over / subBuckets) + subBucketBits + 1
  const shift = exponent - subBucketBits
  return ((over % subBuckets) + subBuckets + 1) * 2 ** shift - 1
}

export class LatencyHistogram {
  readonly counts: Uint32Array
  private total = 0

  constructor(counts?: Uint32Array) {
    this.counts = counts ?? new Uint32Array(bucketCount)
    if (counts) for (const c of counts) this.total += c
  }

  get count(): number {
    return this.total
  }

  recordMicros(micros: number): void {
    this.counts[indexOf(micros)]++
    this.total++
  }

  add(other: LatencyHistogram): void {
    for (let i = 0; i < bucketCount; i++) this.counts[i] += other.counts[i]
    this.total += other.total
  }

  // q in [0, 1]; NaN when nothing was recorded.
  percentileMicros(q: number): number {
    if (this.total === 0) return Number.NaN
    const rank = Math.max(1, Math.ceil(q * this.total))
    let seen = 0
    for (let i = 0; i < bucketCount; i++) {
      seen += this.counts[i]
      if (seen >= rank) return upperBoundOf(i)
    }
    return maxMicros
  }

  percentileMs(q: number): number {
    return this.percentileMicros(q) / 1000
  }
}

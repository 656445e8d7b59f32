// One byte string per value, whatever the key order: the hash chain must not depend on how an object was
// built or decoded. Keys are sorted at every level; everything else is JSON.stringify's (undefined members
// dropped, dates as ISO strings), which measured faster than walking the value by hand.
const sortedKeys = (_key: string, value: unknown): unknown => {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value
  const sorted: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) sorted[key] = (value as Record<string, unknown>)[key]
  return sorted
}

export const canonicalJson = (value: unknown): string => JSON.stringify(value, sortedKeys) ?? 'null'

// A readable diff of an event's preData → data: one line per changed leaf, named by its path.
export interface DiffLine {
  path: string
  kind: 'added' | 'removed' | 'changed'
  before?: unknown
  after?: unknown
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

// Arrays of objects with an id or name are matched by it, so a reordered or inserted strategy does not
// show as every later element changed.
const keyOf = (item: unknown): string | undefined => {
  if (!isObject(item)) return undefined
  const key = item.id ?? item.name ?? item.contextName
  return typeof key === 'string' || typeof key === 'number' ? String(key) : undefined
}

const asEntries = (value: unknown[]): [string, unknown][] => {
  const keys = value.map(keyOf)
  if (keys.every((k) => k !== undefined) && new Set(keys).size === keys.length) return value.map((item, i) => [keys[i]!, item])
  return value.map((item, i) => [String(i), item])
}

const isMissing = (value: unknown) => value === undefined || value === null

const isPrimitiveList = (value: unknown): value is unknown[] => Array.isArray(value) && value.every((item) => typeof item !== 'object' || item === null)

const walk = (before: unknown, after: unknown, path: string, out: DiffLine[]): void => {
  if (Object.is(before, after)) return
  // A list of plain values (segment ids, constraint values) is one line: the list before and after.
  if ((isPrimitiveList(before) || isMissing(before)) && (isPrimitiveList(after) || isMissing(after)) && (Array.isArray(before) || Array.isArray(after))) {
    if (JSON.stringify(before ?? []) === JSON.stringify(after ?? [])) return
    const name = path || '(value)'
    if (isMissing(before) || (before as unknown[]).length === 0) out.push({ path: name, kind: 'added', after })
    else if (isMissing(after) || (after as unknown[]).length === 0) out.push({ path: name, kind: 'removed', before })
    else out.push({ path: name, kind: 'changed', before, after })
    return
  }
  // A whole object or list appearing or going is shown field by field.
  if (isMissing(before) && (isObject(after) || Array.isArray(after))) return walk(Array.isArray(after) ? [] : {}, after, path, out)
  if (isMissing(after) && (isObject(before) || Array.isArray(before))) return walk(before, Array.isArray(before) ? [] : {}, path, out)
  if (Array.isArray(before) && Array.isArray(after)) {
    const left = new Map(asEntries(before))
    const right = new Map(asEntries(after))
    for (const [key, value] of left) walk(value, right.has(key) ? right.get(key) : undefined, `${path}[${key}]`, out)
    for (const [key, value] of right) if (!left.has(key)) walk(undefined, value, `${path}[${key}]`, out)
    return
  }
  if (isObject(before) && isObject(after)) {
    for (const key of new Set([...Object.keys(before), ...Object.keys(after)])) {
      walk(before[key], after[key], path ? `${path}.${key}` : key, out)
    }
    return
  }
  const name = path || '(value)'
  if (isMissing(before)) {
    if (!isMissing(after)) out.push({ path: name, kind: 'added', after })
    return
  }
  if (isMissing(after)) {
    out.push({ path: name, kind: 'removed', before })
    return
  }
  out.push({ path: name, kind: 'changed', before, after })
}

export const diffJson = (before: unknown, after: unknown): DiffLine[] => {
  const out: DiffLine[] = []
  walk(before, after, '', out)
  return out
}

export const showValue = (value: unknown): string =>
  typeof value === 'string' ? value : isPrimitiveList(value) ? value.map(String).join(', ') : JSON.stringify(value)

// Strategy segments are ids in the API: a copy of `value` with every `segments` list of ids replaced
// by the segments' names, for a diff people can read.
export const withSegmentNames = (value: unknown, nameOf: (id: number) => string): unknown => {
  if (Array.isArray(value)) return value.map((item) => withSegmentNames(item, nameOf))
  if (!isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [
      key,
      key === 'segments' && Array.isArray(item) && item.every((id) => typeof id === 'number') ? item.map((id: number) => nameOf(id)) : withSegmentNames(item, nameOf),
    ]),
  )
}

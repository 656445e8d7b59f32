// The two sides of a change request's diff. While the request is open a change is set against its
// target as it is now; once applied, against what the server recorded it replaced (`replaced`).

interface Diffable {
  action: string
  payload: unknown
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)

const pick = (value: Record<string, unknown>, keys: readonly string[]) => Object.fromEntries(keys.filter((k) => k in value).map((k) => [k, value[k]]))

const deletes = new Set(['deleteStrategy', 'deleteSegment'])
const segmentFields = ['name', 'description', 'project', 'constraints'] as const

// The change's side: nothing for a deletion; the payload without Unleash's `snapshot` (what it replaced,
// which is the other side).
export const afterOf = (change: Diffable): unknown => {
  if (deletes.has(change.action)) return null
  if (!isObject(change.payload)) return change.payload ?? null
  const { snapshot: _replaced, ...payload } = change.payload
  return payload
}

// The target's side, in the shape of the payload it is set against: the environment's variants as
// `{variants}`, a flag's one dependency as itself, a segment as the fields a segment change sets, and
// an updated strategy as the fields the update sets (the ones it leaves out it keeps).
export const beforeOf = (change: Diffable, target: unknown): unknown => {
  if (target === undefined || target === null) return null
  switch (change.action) {
    case 'patchVariant':
      return { variants: target }
    case 'addDependency':
    case 'deleteDependency':
      return Array.isArray(target) && target.length === 1 ? target[0] : target
    case 'updateSegment':
    case 'deleteSegment':
      return isObject(target) ? pick(target, segmentFields) : target
    case 'updateStrategy': {
      const after = afterOf(change)
      return isObject(target) && isObject(after) ? pick(target, Object.keys(after)) : target
    }
    default:
      return target
  }
}

import type { Feature } from './project-state.js'

// How many of a project's flags are active (not archived), per version of its flag map: the flag
// limits (the project's and the instance's) ask at every creation. The count of a version is carried
// to the version an event makes from it (one flag changed: plus or minus one), so it is counted once
// and then kept in O(1); a version no count reached is counted when first asked. State stays immutable:
// this only remembers a function of each (immutable) map.
const counts = new WeakMap<ReadonlyMap<string, Feature>, number>()

const isActive = (feature: Feature | undefined) => feature !== undefined && !feature.archived

export const activeFeatureCount = (features: ReadonlyMap<string, Feature>): number => {
  let count = counts.get(features)
  if (count === undefined) {
    count = 0
    for (const feature of features.values()) if (!feature.archived) count++
    counts.set(features, count)
  }
  return count
}

// `after` was made from `before` by changing at most the flag `name` (an event about that flag).
export const carryActiveCount = (before: ReadonlyMap<string, Feature>, after: ReadonlyMap<string, Feature>, name: string): void => {
  const count = counts.get(before)
  if (count === undefined || counts.has(after)) return
  const was = before.get(name)
  const is = after.get(name)
  // Anything else changed (the sizes tell of another flag): no count is carried, it is counted if asked.
  if (after.size - before.size !== (is ? 1 : 0) - (was ? 1 : 0)) return
  counts.set(after, count - (isActive(was) ? 1 : 0) + (isActive(is) ? 1 : 0))
}

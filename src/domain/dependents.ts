import type { Feature } from './project-state.js'

// The active flags of a project that depend on each flag (by the parent's name), per version of the
// project's flag map: adding a dependency, archiving and moving a flag ask whether it has children, and
// walked every flag to know. Counted on the first question, then shared with the versions that events
// about one flag make from it, as long as that flag's part in it is the same (a new flag has no
// dependencies, and changing a flag's strategies leaves them alone); an event that changes it leaves
// the next version to be counted when asked. State stays immutable: this only remembers a function of
// each (immutable) map.
type Dependents = ReadonlyMap<string, readonly string[]>

const known = new WeakMap<ReadonlyMap<string, Feature>, Dependents>()
const none: readonly string[] = []

const parentsOf = (feature: Feature | undefined): readonly string[] | readonly { feature: string }[] =>
  feature && !feature.archived ? feature.dependencies : none

export const dependentsOf = (features: ReadonlyMap<string, Feature>): Dependents => {
  let dependents = known.get(features)
  if (!dependents) {
    const built = new Map<string, string[]>()
    for (const feature of features.values()) {
      if (feature.archived) continue
      for (const { feature: parent } of feature.dependencies) {
        const children = built.get(parent)
        if (!children) built.set(parent, [feature.name])
        else if (children[children.length - 1] !== feature.name) children.push(feature.name)
      }
    }
    known.set(features, (dependents = built))
  }
  return dependents
}

// The active flags that depend on `name`, in the flag map's order.
export const childrenOf = (features: ReadonlyMap<string, Feature>, name: string): readonly string[] => dependentsOf(features).get(name) ?? none

// `after` was made from `before` by changing at most the flag `name`.
export const carryDependents = (before: ReadonlyMap<string, Feature>, after: ReadonlyMap<string, Feature>, name: string): void => {
  const dependents = known.get(before)
  if (!dependents || known.has(after)) return
  const was = parentsOf(before.get(name))
  const is = parentsOf(after.get(name))
  if (was === is || (was.length === 0 && is.length === 0)) known.set(after, dependents)
}

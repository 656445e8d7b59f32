import { childrenOf } from './flag-facts.js'
import { fail, invalidOperation, ok, type Result } from './errors.js'
import { draft, type EventDraft } from './events.js'
import { findActiveFeature } from './features.js'
import type { Dependency, ProjectState } from './project-state.js'
import type { WithMeta } from './world.js'

type AddDependency = { type: 'dependency.add'; feature: string; dependency: Dependency }
// No parent: all of the flag's dependencies.
type RemoveDependency = { type: 'dependency.remove'; feature: string; parent?: string }

export type DependencyCommand = AddDependency | RemoveDependency

const hasChildren = (state: ProjectState, name: string) => childrenOf(state.features, name).length > 0

// Unleash's rules (SEMANTICS 4.2): one parent per child, no chains, same project, parent active.
export const decideAddDependency = (state: ProjectState, { feature: child, dependency, world, meta }: WithMeta<AddDependency>): Result<EventDraft[]> => {
  const found = findActiveFeature(state, child, world)
  if (!found.ok) return found
  const parentName = dependency.feature
  if (parentName === child) return fail(invalidOperation('A feature flag cannot depend on itself.'))
  if (hasChildren(state, child)) {
    return fail(invalidOperation('Transitive dependency detected. Cannot add a dependency to the feature that other features depend on.'))
  }
  const location = world.featureLocation(parentName)
  if (!location || location.archived) return fail(invalidOperation(`No active feature ${parentName} exists`))
  if (location.project !== state.settings.id) return fail(invalidOperation('Parent and child features should be in the same project'))
  const parent = state.features.get(parentName)!
  if (parent.dependencies.length > 0) {
    return fail(invalidOperation('Transitive dependency detected. Cannot add a dependency to the feature that has parent dependency.'))
  }
  const stored: Dependency = { feature: parentName, enabled: dependency.enabled, variants: dependency.enabled ? dependency.variants : [] }
  const current = found.value.dependencies
  if (current.length === 1 && JSON.stringify(current[0]) === JSON.stringify(stored)) return ok([])
  return ok([
    draft(meta, 'feature-dependency-added', {
      project: state.settings.id,
      featureName: child,
      data: { feature: stored.feature, enabled: stored.enabled, ...(stored.variants.length > 0 ? { variants: stored.variants } : {}) },
    }),
  ])
}

export const decideRemoveDependency = (state: ProjectState, { feature: child, parent, world, meta }: WithMeta<RemoveDependency>): Result<EventDraft[]> => {
  const found = findActiveFeature(state, child, world)
  if (!found.ok) return found
  const keys = { project: state.settings.id, featureName: child }
  if (parent === undefined) return ok(found.value.dependencies.length > 0 ? [draft(meta, 'feature-dependencies-removed', keys)] : [])
  if (!found.value.dependencies.some((d) => d.feature === parent)) return ok([])
  return ok([draft(meta, 'feature-dependency-removed', { ...keys, data: { feature: parent } })])
}

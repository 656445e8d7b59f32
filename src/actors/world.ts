import type { ProjectWorld } from '../domain/world.js'
import type { Registry } from './registry.js'

// Built synchronously right before a command is sent, from decided state, so that a decision
// sees every earlier decision even when its commit is still in flight.
export const buildWorld = (registry: Registry): ProjectWorld => {
  const instance = registry.decidedInstance()
  const projects = [...registry.decidedProjects()]
  return {
    environments: instance.environments,
    projectCount: projects.length,
    // Asked at every flag creation: the stored flags (archived ones included) are counted per project
    // first, and only when they reach n are the active ones counted, so creating flags stays O(projects).
    activeFeaturesAtLeast: (n) => {
      let stored = 0
      for (const [, project] of projects) stored += project.features.size
      if (stored < n) return false
      let active = 0
      for (const [, project] of projects) for (const feature of project.features.values()) if (!feature.archived && ++active >= n) return true
      return false
    },
    featureLocation: (name) => {
      for (const [project, state] of projects) {
        const feature = state.features.get(name)
        if (feature) return { project, archived: feature.archived }
      }
      return undefined
    },
    strategyTypeExists: (name) => instance.strategyTypes.has(name),
    segment: (id) => instance.segments.get(id),
    people: instance.people,
    legalValuesOf: (name) => {
      const values = instance.contextFields.get(name)?.legalValues ?? []
      return values.length > 0 ? new Set(values.map((v) => v.value)) : undefined
    },
  }
}

// Where a segment is used, over decided state: a delete decided now cannot miss a strategy added just before.
export const segmentUsage = (registry: Registry) => (segmentId: number): string[] => {
  const projects: string[] = []
  for (const [id, project] of registry.decidedProjects()) {
    const uses = [...project.features.values()].some((f) =>
      [...f.environments.values()].some((env) => env.strategies.some((s) => s.segments.includes(segmentId))),
    )
    if (uses) projects.push(id)
  }
  return projects
}

export const strategyTypeInUse = (registry: Registry) => (name: string): boolean => {
  for (const [, project] of registry.decidedProjects()) {
    for (const feature of project.features.values()) {
      for (const env of feature.environments.values()) if (env.strategies.some((s) => s.name === name)) return true
    }
  }
  return false
}

// Unleash 8.2 (side by side): a context field is in use while a strategy of a flag that is not archived
// has a constraint on it (segments and stickiness do not count).
export const contextFieldInUse = (registry: Registry) => (name: string): boolean => {
  for (const [, project] of registry.decidedProjects()) {
    for (const feature of project.features.values()) {
      if (feature.archived) continue
      for (const env of feature.environments.values()) if (env.strategies.some((s) => s.constraints.some((c) => c.contextName === name))) return true
    }
  }
  return false
}

import type { ProjectWorld } from '../domain/world.js'
import type { Registry } from './registry.js'

// The world as decisions see it (committed state plus each actor's decision in flight), for a route
// that checks something before it sends a command. A project command is given its world again by
// its actor when it is decided (Registry.projectWorld).
export const buildWorld = (registry: Registry): ProjectWorld => registry.projectWorld()

// Where a segment is used, read when asked: a delete decided now cannot miss a strategy added just before.
export const segmentUsage = (registry: Registry) => (segmentId: number): string[] => registry.segmentUsage(segmentId)

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

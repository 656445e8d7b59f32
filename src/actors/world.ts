import type { ProjectWorld } from '../domain/world.js'
import { builtInStrategyTypes } from '../domain/strategies.js'
import type { Registry } from './registry.js'

const builtIn = new Set<string>(builtInStrategyTypes)

// Built synchronously right before a command is sent, from decided state, so that a decision
// sees every earlier decision even when its commit is still in flight.
export const buildWorld = (registry: Registry): ProjectWorld => {
  const instance = registry.decidedInstance()
  const projects = [...registry.decidedProjects()]
  return {
    environments: instance.environments,
    projectCount: projects.length,
    featureCount: projects.reduce((sum, [, p]) => sum + p.features.size, 0),
    featureLocation: (name) => {
      for (const [project, state] of projects) {
        const feature = state.features.get(name)
        if (feature) return { project, archived: feature.archived }
      }
      return undefined
    },
    strategyTypeExists: (name) => builtIn.has(name),
    segment: () => undefined,
    legalValuesOf: () => undefined,
  }
}

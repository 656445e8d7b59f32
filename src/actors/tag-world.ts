import type { TagWorld } from '../domain/feature-tags.js'
import type { Registry } from './registry.js'

// Built from decided state right before a tagging command, like the project world.
export const buildTagWorld = (registry: Registry): TagWorld => {
  const instance = registry.decidedInstance()
  return { tagTypeExists: (type) => instance.tagTypes.has(type) }
}

// Projects where some flag carries a tag of this type.
export const projectsUsingTagType = (registry: Registry, type: string): string[] =>
  [...registry.decidedProjects()].filter(([, p]) => [...p.features.values()].some((f) => f.tags.some((t) => t.type === type))).map(([id]) => id)

// Projects with a flag carrying this tag, and those flags.
export const flagsCarryingTag = (registry: Registry, tag: { type: string; value: string }): { projectId: string; features: string[] }[] =>
  [...registry.decidedProjects()]
    .map(([projectId, p]) => ({
      projectId,
      features: [...p.features.values()].filter((f) => f.tags.some((t) => t.type === tag.type && t.value === tag.value)).map((f) => f.name),
    }))
    .filter(({ features }) => features.length > 0)

import type { TagWorld } from '../domain/feature-tags.js'
import type { Registry } from './registry.js'

// Which tag types exist, for a tagging command: read from the instance as decided when the project
// actor decides the command (Registry.tagWorld), so this is what routes pass along.
export const buildTagWorld = (registry: Registry): TagWorld => registry.tagWorld()

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

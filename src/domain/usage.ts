import type { Tag } from '../schemas/shared.js'
import type { ProjectState } from './project-state.js'

// Where things are used across projects: read by a decision (as the world sees the projects) or by a
// route's check (as committed).
type Projects = Iterable<readonly [string, ProjectState]>

const strategiesOf = function* (project: ProjectState, { activeOnly = false } = {}) {
  for (const feature of project.features.values()) {
    if (activeOnly && feature.archived) continue
    for (const env of feature.environments.values()) yield* env.strategies
  }
}

export const strategyTypeInUse = (projects: Projects, name: string): boolean => {
  for (const [, project] of projects) for (const strategy of strategiesOf(project)) if (strategy.name === name) return true
  return false
}

// Unleash 8.2 (side by side): a context field is in use while a strategy of a flag that is not archived
// has a constraint on it (segments and stickiness do not count).
export const contextFieldInUse = (projects: Projects, name: string): boolean => {
  for (const [, project] of projects) {
    for (const strategy of strategiesOf(project, { activeOnly: true })) if (strategy.constraints.some((c) => c.contextName === name)) return true
  }
  return false
}

// The projects where some strategy uses the segment.
export const projectsUsingSegment = (projects: Projects, segmentId: number): string[] => {
  const found: string[] = []
  for (const [id, project] of projects) {
    for (const strategy of strategiesOf(project)) {
      if (strategy.segments.includes(segmentId)) {
        found.push(id)
        break
      }
    }
  }
  return found
}

// Projects where some flag carries a tag of this type.
export const projectsUsingTagType = (projects: Projects, type: string): string[] =>
  [...projects].filter(([, p]) => [...p.features.values()].some((f) => f.tags.some((t) => t.type === type))).map(([id]) => id)

// Projects with a flag carrying this tag, and those flags.
export const flagsCarryingTag = (projects: Projects, tag: Tag): { projectId: string; features: string[] }[] =>
  [...projects]
    .map(([projectId, p]) => ({
      projectId,
      features: [...p.features.values()].filter((f) => f.tags.some((t) => t.type === tag.type && t.value === tag.value)).map((f) => f.name),
    }))
    .filter(({ features }) => features.length > 0)

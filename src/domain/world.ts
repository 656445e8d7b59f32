import type { CommandMeta } from './events.js'
import { activeFeatureCount } from './flag-facts.js'
import type { Environment, InstanceState } from './instance-state.js'
import type { PeopleState } from './people-state.js'
import type { ProjectState } from './project-state.js'

// What a project's decisions may know of the rest of the instance; the project actor builds it
// synchronously when it decides, so nothing can change between the look and the decision.
export interface ProjectWorld {
  environments: ReadonlyMap<string, Environment>
  projectCount: number
  // Whether at least n flags are active (not archived), across all projects: the global flag limit.
  activeFeaturesAtLeast: (n: number) => boolean
  featureLocation: (name: string) => { project: string; archived: boolean } | undefined
  strategyTypeExists: (name: string) => boolean
  segment: (id: number) => { id: number; name: string; project: string | null } | undefined
  legalValuesOf: (contextName: string) => ReadonlySet<string> | undefined
  people: PeopleState
}

// The world over an instance and its projects: as decisions see them (the registry) or as committed
// (a route's check before it sends a command).
export const projectWorldOf = (instance: InstanceState, projects: readonly (readonly [string, ProjectState])[]): ProjectWorld => ({
  environments: instance.environments,
  projectCount: projects.length,
  // Asked at every flag creation: O(projects), each project's count kept with its flags (flag-facts.ts).
  activeFeaturesAtLeast: (n) => {
    let active = 0
    for (const [, project] of projects) if ((active += activeFeatureCount(project.features)) >= n) return true
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
})

// A project command as its decision gets it: who asked, and the world as it was when it was sent.
export type WithMeta<C> = C & { meta: CommandMeta; world: ProjectWorld }

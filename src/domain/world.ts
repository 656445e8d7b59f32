import type { CommandMeta } from './events.js'
import type { Environment } from './instance-state.js'
import type { PeopleState } from './people-state.js'

// What a project's decisions may know of the rest of the instance; dispatch builds it synchronously
// right before the command, so nothing can change between the look and the decision.
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

// A project command as its decision gets it: who asked, and the world as it was when it was sent.
export type WithMeta<C> = C & { meta: CommandMeta; world: ProjectWorld }

import type { Registry } from './registry.js'

// What routes read of the actors (the api's ReadPort): committed state only, the state the log holds.
export const committedReads = (registry: Registry) => ({
  get instance() {
    return registry.committedInstance
  },
  projects: registry.committedProjects,
  changeRequests: registry.committedChangeRequests,
  get lastId() {
    return registry.lastCommittedId
  },
  world: () => registry.committedWorld(),
})

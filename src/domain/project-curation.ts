import type { CompleteFeature } from '../schemas/lifecycle.js'
import type { Tag } from '../schemas/shared.js'
import type { Result } from './errors.js'
import type { CommandMeta, EventDraft } from './events.js'
import { decideFavoriteFeature, decideFavoriteProject, evolveFavorites } from './favorites.js'
import { decideImport, type ImportPlan } from './feature-import.js'
import { decideAddTag, decideBulkUpdateTags, decideDropTagType, decideRemoveTag, decideUpdateTags, evolveFeatureTags, type TagChanges, type TagWorld } from './feature-tags.js'
import type { Lifetimes } from './feature-types.js'
import { decideCompleteFeature, decideUncompleteFeature, evolveLifecycle } from './lifecycle.js'
import type { ProjectState } from './project-state.js'
import { decideMarkPotentiallyStale, decideSetStale, evolvePotentiallyStale } from './staleness.js'
import type { ProjectWorld } from './world.js'

// Project commands that curate flags rather than configure what SDKs get: tags, favorites,
// staleness, lifecycle completion, and the import (which also configures, atomically).
export type CurationCommand =
  | { type: 'tag.add'; feature: string; tag: Tag; tags: TagWorld }
  | { type: 'tag.remove'; feature: string; tag: Tag; tags: TagWorld }
  | { type: 'tags.update'; feature: string; update: { set: Tag[] } | { changes: TagChanges }; tags: TagWorld }
  | { type: 'tags.bulkUpdate'; features: string[]; changes: TagChanges; tags: TagWorld }
  | { type: 'tags.dropType'; tagType: string }
  | { type: 'feature.setStale'; names: string[]; stale: boolean }
  | { type: 'feature.markPotentiallyStale'; lifetimes: Lifetimes }
  | { type: 'feature.complete'; feature: string; input: CompleteFeature }
  | { type: 'feature.uncomplete'; feature: string }
  | { type: 'favorite.feature'; feature: string; userKey: string; favorite: boolean }
  | { type: 'favorite.project'; userKey: string; favorite: boolean }
  | { type: 'features.import'; plan: ImportPlan; ids: string[]; tags: TagWorld }

type Evolve = (state: ProjectState | undefined, event: EventDraft) => ProjectState | undefined

export const decideCuration = (state: ProjectState, command: CurationCommand, world: ProjectWorld, meta: CommandMeta, evolve: Evolve): Result<EventDraft[]> => {
  switch (command.type) {
    case 'tag.add':
      return decideAddTag(state, command.feature, command.tag, command.tags, world, meta)
    case 'tag.remove':
      return decideRemoveTag(state, command.feature, command.tag, command.tags, world, meta)
    case 'tags.update':
      return decideUpdateTags(state, command.feature, command.update, command.tags, world, meta)
    case 'tags.bulkUpdate':
      return decideBulkUpdateTags(state, command.features, command.changes, command.tags, meta)
    case 'tags.dropType':
      return decideDropTagType(state, command.tagType, meta)
    case 'feature.setStale':
      return decideSetStale(state, command.names, command.stale, world, meta)
    case 'feature.markPotentiallyStale':
      return decideMarkPotentiallyStale(state, command.lifetimes, meta)
    case 'feature.complete':
      return decideCompleteFeature(state, command.feature, command.input, world, meta)
    case 'feature.uncomplete':
      return decideUncompleteFeature(state, command.feature, world, meta)
    case 'favorite.feature':
      return decideFavoriteFeature(state, command.feature, command.userKey, command.favorite, world, meta)
    case 'favorite.project':
      return decideFavoriteProject(state, command.userKey, command.favorite, meta)
    case 'features.import':
      return decideImport(state, command.plan, command.ids, command.tags, world, meta, evolve)
  }
}

export const evolveCuration = (state: ProjectState, event: EventDraft): ProjectState => {
  switch (event.type) {
    case 'feature-tagged':
    case 'feature-untagged':
      return evolveFeatureTags(state, event)
    case 'feature-favorited':
    case 'feature-unfavorited':
    case 'project-favorited':
    case 'project-unfavorited':
      return evolveFavorites(state, event)
    case 'feature-completed':
    case 'feature-uncompleted':
      return evolveLifecycle(state, event)
    case 'feature-potentially-stale-on':
      return evolvePotentiallyStale(state, event)
    default:
      return state
  }
}

// Events that change nothing an SDK is served: the client payload's revision need not move for them.
const notInClientPayload = new Set<string>([
  'feature-favorited', 'feature-unfavorited', 'project-favorited', 'project-unfavorited', 'feature-completed',
  'feature-uncompleted', 'feature-potentially-stale-on', 'features-exported', 'tag-created',
])
export const isOutsideClientPayload = (type: string): boolean => notInClientPayload.has(type)

import { ok, type Result } from './errors.js'
import type { EventDraft } from './events.js'
import { decideFavoriteFeature, decideFavoriteProject, evolveFavorites, type FavoriteCommand } from './favorites.js'
import { decideImport, type ImportCommand } from './feature-import.js'
import { decideAddTag, decideBulkUpdateTags, decideDropTagType, decideRemoveTag, decideUpdateTags, evolveFeatureTags, type TagCommand } from './feature-tags.js'
import { decideCompleteFeature, decideUncompleteFeature, evolveLifecycle, type LifecycleCommand } from './lifecycle.js'
import type { ProjectState } from './project-state.js'
import { decideMarkPotentiallyStale, decideSetStale, evolvePotentiallyStale, type StalenessCommand } from './staleness.js'
import type { WithMeta } from './world.js'

// Project commands that curate flags rather than configure what SDKs get: tags, favorites,
// staleness, lifecycle completion, and the import (which also configures, atomically).
export type CurationCommand = TagCommand | StalenessCommand | LifecycleCommand | FavoriteCommand | ImportCommand

type Evolve = (state: ProjectState | undefined, event: EventDraft) => ProjectState | undefined

export const decideCuration = (state: ProjectState, command: WithMeta<CurationCommand>, evolve: Evolve): Result<EventDraft[]> => {
  switch (command.type) {
    case 'tag.add':
      return decideAddTag(state, command)
    case 'tag.remove':
      return decideRemoveTag(state, command)
    case 'tags.update':
      return decideUpdateTags(state, command)
    case 'tags.bulkUpdate':
      return decideBulkUpdateTags(state, command)
    case 'tags.dropType':
      return decideDropTagType(state, command)
    case 'feature.setStale':
      return decideSetStale(state, command)
    case 'feature.markPotentiallyStale':
      return decideMarkPotentiallyStale(state, command)
    case 'feature.complete':
      return decideCompleteFeature(state, command)
    case 'feature.uncomplete':
      return decideUncompleteFeature(state, command)
    case 'favorite.feature':
      return decideFavoriteFeature(state, command)
    case 'favorite.project':
      return decideFavoriteProject(state, command)
    case 'features.import': {
      const decided = decideImport(state, command, evolve)
      return decided.ok ? ok(decided.value.events) : decided
    }
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

import type { Tag } from '../schemas/shared.js'
import { badData, fail, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { findFeature } from './features.js'
import { updateEntry } from './immutable.js'
import type { Feature, ProjectState } from './project-state.js'
import type { ProjectWorld } from './world.js'

// What tagging may know of the instance: the tag types, and which tags any flag already carries
// (a tag no flag carries is new: Unleash then records tag-created first).
export interface TagWorld {
  tagTypeExists: (type: string) => boolean
  tagExists: (tag: Tag) => boolean
}

export interface TagChanges {
  added: Tag[]
  removed: Tag[]
}

const sameTag = (a: Tag, b: Tag) => a.type === b.type && a.value === b.value
const hasTag = (tags: readonly Tag[], tag: Tag) => tags.some((t) => sameTag(t, tag))
const unique = (tags: readonly Tag[]) => tags.filter((t, i) => tags.findIndex((o) => sameTag(o, t)) === i)

export const tagTypeMissing = (type: string) => badData(`Tag type '${type}' does not exist`)

// Removals first, then additions; a tag both removed and added stays. One event per real change.
export const tagChangeEvents = (
  state: ProjectState,
  feature: Feature,
  changes: TagChanges,
  tags: TagWorld,
  meta: CommandMeta,
): Result<EventDraft[]> => {
  const missing = changes.added.find((t) => !tags.tagTypeExists(t.type))
  if (missing) return fail(tagTypeMissing(missing.type))
  const keys = { project: state.settings.id, featureName: feature.name }
  const added = unique(changes.added)
  const removed = unique(changes.removed).filter((t) => hasTag(feature.tags, t) && !hasTag(added, t))
  const events: EventDraft[] = removed.map((t) => draft(meta, 'feature-untagged', { ...keys, preData: { type: t.type, value: t.value } }))
  const created: Tag[] = []
  for (const tag of added) {
    if (hasTag(feature.tags, tag)) continue
    if (!tags.tagExists(tag) && !hasTag(created, tag)) {
      created.push(tag)
      // Marked, so that replay leaves it to the project (the instance's own tags come from POST /api/admin/tags).
      events.push(draft(meta, 'tag-created', { data: { type: tag.type, value: tag.value }, hidden: { onFlag: true } }))
    }
    events.push(draft(meta, 'feature-tagged', { ...keys, data: { type: tag.type, value: tag.value } }))
  }
  return ok(events)
}

export const decideAddTag = (state: ProjectState, featureName: string, tag: Tag, tags: TagWorld, world: ProjectWorld, meta: CommandMeta) => {
  const found = findFeature(state, featureName, world)
  if (!found.ok) return found
  return tagChangeEvents(state, found.value, { added: [tag], removed: [] }, tags, meta)
}

export const decideRemoveTag = (state: ProjectState, featureName: string, tag: Tag, tags: TagWorld, world: ProjectWorld, meta: CommandMeta) => {
  const found = findFeature(state, featureName, world)
  if (!found.ok) return found
  return tagChangeEvents(state, found.value, { added: [], removed: [tag] }, tags, meta)
}

// `set` replaces the flag's tags; `changes` applies Unleash's {addedTags, removedTags}.
export const decideUpdateTags = (
  state: ProjectState,
  featureName: string,
  update: { set: Tag[] } | { changes: TagChanges },
  tags: TagWorld,
  world: ProjectWorld,
  meta: CommandMeta,
): Result<EventDraft[]> => {
  const found = findFeature(state, featureName, world)
  if (!found.ok) return found
  const changes = 'set' in update ? { added: update.set, removed: found.value.tags.filter((t) => !hasTag(update.set, t)) } : update.changes
  return tagChangeEvents(state, found.value, changes, tags, meta)
}

// PUT /api/admin/projects/:projectId/tags: the same changes on several flags of the project.
export const decideBulkUpdateTags = (
  state: ProjectState,
  featureNames: string[],
  changes: TagChanges,
  tags: TagWorld,
  meta: CommandMeta,
): Result<EventDraft[]> => {
  const events: EventDraft[] = []
  let created: Tag[] = []
  for (const name of new Set(featureNames)) {
    const feature = state.features.get(name)
    if (!feature) return fail(badData('Tried to change tags of feature not belonging to project'))
    const knownNow: TagWorld = { tagTypeExists: tags.tagTypeExists, tagExists: (t) => tags.tagExists(t) || hasTag(created, t) }
    const decided = tagChangeEvents(state, feature, changes, knownNow, meta)
    if (!decided.ok) return decided
    events.push(...decided.value)
    created = [...created, ...changes.added]
  }
  return ok(events)
}

// Deleting a tag type takes its tags off every flag first (Unleash cascades in SQL, without events).
export const decideDropTagType = (state: ProjectState, type: string, meta: CommandMeta): Result<EventDraft[]> => {
  const events: EventDraft[] = []
  for (const feature of state.features.values()) {
    for (const tag of feature.tags) {
      if (tag.type !== type) continue
      events.push(draft(meta, 'feature-untagged', { project: state.settings.id, featureName: feature.name, preData: { type: tag.type, value: tag.value } }))
    }
  }
  return ok(events)
}

export const evolveFeatureTags = (state: ProjectState, event: EventDraft): ProjectState => {
  const name = String(event.featureName)
  if (event.type === 'feature-tagged') {
    const tag: Tag = { type: event.data.type, value: event.data.value }
    return { ...state, features: updateEntry(state.features, name, (f) => (hasTag(f.tags, tag) ? f : { ...f, tags: [...f.tags, tag] })) }
  }
  if (event.type === 'feature-untagged') {
    const tag: Tag = { type: event.preData.type, value: event.preData.value }
    return { ...state, features: updateEntry(state.features, name, (f) => ({ ...f, tags: f.tags.filter((t) => !sameTag(t, tag)) })) }
  }
  return state
}

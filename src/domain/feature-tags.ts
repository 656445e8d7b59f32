import type { Tag } from '../schemas/shared.js'
import { DomainError, badData, fail, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { findFeature } from './features.js'
import { tagTypeMissing } from './tag-types.js'
import { updateFeatureIn, type Feature, type ProjectState } from './project-state.js'
import type { WithMeta } from './world.js'

// What tagging may know of the instance: the tag types. Whether a tag is new (tag-created) is the
// instance's to decide (decideEnsureTags), in the same append, before the flag events.
export interface TagWorld {
  tagTypeExists: (type: string) => boolean
}

export interface TagChanges {
  added: Tag[]
  removed: Tag[]
}

type AddTag = { type: 'tag.add'; feature: string; tag: Tag; tags: TagWorld }
type RemoveTag = { type: 'tag.remove'; feature: string; tag: Tag; tags: TagWorld }
// `set` replaces the flag's tags; `changes` applies Unleash's {addedTags, removedTags}.
type UpdateTags = { type: 'tags.update'; feature: string; update: { set: Tag[] } | { changes: TagChanges }; tags: TagWorld }
type BulkUpdateTags = { type: 'tags.bulkUpdate'; features: string[]; changes: TagChanges; tags: TagWorld }
type DropTagType = { type: 'tags.dropType'; tagType: string }

export type TagCommand = AddTag | RemoveTag | UpdateTags | BulkUpdateTags | DropTagType

// What recording tag changes needs besides the flags: the tag types, and who asked.
interface Tagging {
  tags: TagWorld
  meta: CommandMeta
}

const sameTag = (a: Tag, b: Tag) => a.type === b.type && a.value === b.value
const hasTag = (tags: readonly Tag[], tag: Tag) => tags.some((t) => sameTag(t, tag))
const unique = (tags: readonly Tag[]) => tags.filter((t, i) => tags.findIndex((o) => sameTag(o, t)) === i)

const typesExist = (tags: readonly Tag[], world: TagWorld): DomainError | undefined => {
  const missing = tags.find((t) => !world.tagTypeExists(t.type))
  return missing && tagTypeMissing(missing.type)
}

const keysOf = (state: ProjectState, feature: Feature) => ({ project: state.settings.id, featureName: feature.name })
const tagged = (state: ProjectState, feature: Feature, tag: Tag, meta: CommandMeta) =>
  draft(meta, 'feature-tagged', { ...keysOf(state, feature), data: { type: tag.type, value: tag.value } })
const untagged = (state: ProjectState, feature: Feature, tag: Tag, meta: CommandMeta) =>
  draft(meta, 'feature-untagged', { ...keysOf(state, feature), preData: { type: tag.type, value: tag.value } })

// Explicit additions and removals, as Unleash 8.2 records them (side by side): every added tag is a
// feature-tagged, even one a flag already carries, flag by flag; then every removed one a
// feature-untagged, even one a flag does not carry. A tag both added and removed ends removed.
export const tagChangeEvents = (state: ProjectState, features: readonly Feature[], changes: TagChanges, { tags, meta }: Tagging): Result<EventDraft[]> => {
  const added = unique(changes.added)
  const removed = unique(changes.removed)
  const error = typesExist(added, tags)
  if (error) return fail(error)
  return ok([
    ...features.flatMap((feature) => added.map((tag) => tagged(state, feature, tag, meta))),
    ...features.flatMap((feature) => removed.map((tag) => untagged(state, feature, tag, meta))),
  ])
}

// A flag's tags set to a list (our PUT with an array, an import, a revert): only what changes is
// recorded, additions first as Unleash orders them.
export const tagSetEvents = (state: ProjectState, feature: Feature, wanted: readonly Tag[], { tags, meta }: Tagging): Result<EventDraft[]> => {
  const set = unique(wanted)
  const error = typesExist(set, tags)
  if (error) return fail(error)
  return ok([
    ...set.filter((t) => !hasTag(feature.tags, t)).map((tag) => tagged(state, feature, tag, meta)),
    ...feature.tags.filter((t) => !hasTag(set, t)).map((tag) => untagged(state, feature, tag, meta)),
  ])
}

export const decideAddTag = (state: ProjectState, command: WithMeta<AddTag>): Result<EventDraft[]> => {
  const found = findFeature(state, command.feature, command.world)
  if (!found.ok) return found
  return tagChangeEvents(state, [found.value], { added: [command.tag], removed: [] }, command)
}

export const decideRemoveTag = (state: ProjectState, command: WithMeta<RemoveTag>): Result<EventDraft[]> => {
  const found = findFeature(state, command.feature, command.world)
  if (!found.ok) return found
  return tagChangeEvents(state, [found.value], { added: [], removed: [command.tag] }, command)
}

export const decideUpdateTags = (state: ProjectState, command: WithMeta<UpdateTags>): Result<EventDraft[]> => {
  const found = findFeature(state, command.feature, command.world)
  if (!found.ok) return found
  const { update } = command
  return 'set' in update ? tagSetEvents(state, found.value, update.set, command) : tagChangeEvents(state, [found.value], update.changes, command)
}

// PUT /api/admin/projects/:projectId/tags: the same changes on several flags of the project.
export const decideBulkUpdateTags = (state: ProjectState, command: WithMeta<BulkUpdateTags>): Result<EventDraft[]> => {
  const features: Feature[] = []
  for (const name of new Set(command.features)) {
    const feature = state.features.get(name)
    if (!feature) return fail(badData('Tried to change tags of feature not belonging to project'))
    features.push(feature)
  }
  return tagChangeEvents(state, features, command.changes, command)
}

// Deleting a tag type takes its tags off every flag first (Unleash cascades in SQL, without events).
export const decideDropTagType = (state: ProjectState, { tagType: type, meta }: WithMeta<DropTagType>): Result<EventDraft[]> => {
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
    return { ...state, features: updateFeatureIn(state.features, name, (f) => (hasTag(f.tags, tag) ? f : { ...f, tags: [...f.tags, tag] })) }
  }
  if (event.type === 'feature-untagged') {
    const tag: Tag = { type: event.preData.type, value: event.preData.value }
    return { ...state, features: updateFeatureIn(state.features, name, (f) => ({ ...f, tags: f.tags.filter((t) => !sameTag(t, tag)) })) }
  }
  return state
}

import type { TagTypeInput, UpdateTagTypeInput } from '../schemas/tags.js'
import { DomainError, badData, fail, nameExists, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { withEntry, withoutEntry } from './immutable.js'
import type { TagType } from './built-in-types.js'
import type { InstanceState } from './instance-state.js'

export const tagTypeNotFound = (name: string) => notFound(`Tagtype ${name} could not be found`)

// Tagging a flag with a tag of an unknown type (Unleash's wording).
export const tagTypeMissing = (type: string) => badData(`Tag type '${type}' does not exist`)

export const decideCreateTagType = (state: InstanceState, input: TagTypeInput, meta: CommandMeta): Result<EventDraft[]> => {
  if (state.tagTypes.has(input.name)) return fail(nameExists(`There already exists a tag-type with the name ${input.name}`))
  const tagType: TagType = { name: input.name, description: input.description ?? '', icon: input.icon ?? null }
  return ok([draft(meta, 'tag-type-created', { data: tagType })])
}

export const decideUpdateTagType = (state: InstanceState, name: string, input: UpdateTagTypeInput, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.tagTypes.get(name)
  if (!current) return fail(tagTypeNotFound(name))
  const next: TagType = {
    name,
    description: input.description === undefined ? current.description : input.description ?? '',
    icon: input.icon === undefined ? current.icon : input.icon,
  }
  if (next.description === current.description && next.icon === current.icon) return ok([])
  return ok([draft(meta, 'tag-type-updated', { data: next, preData: current })])
}

// The route untags every flag first (Unleash cascades in SQL); a tag added in between makes this refuse.
export const decideDeleteTagType = (state: InstanceState, name: string, inUse: boolean, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.tagTypes.get(name)
  if (!current) return fail(tagTypeNotFound(name))
  if (inUse) return fail(new DomainError('ConflictError', `Tag type ${name} is still used by feature flags; remove those tags first`))
  return ok([draft(meta, 'tag-type-deleted', { preData: current })])
}

// Tag types an import needs and the instance lacks, created before the flags that use them.
export const decideImportTagTypes = (state: InstanceState, tagTypes: TagType[], meta: CommandMeta): EventDraft[] =>
  tagTypes.filter((t, i) => !state.tagTypes.has(t.name) && tagTypes.findIndex((o) => o.name === t.name) === i).map((t) => draft(meta, 'tag-type-created', { data: t }))

export const evolveTagTypes = (state: InstanceState, event: EventDraft): InstanceState => {
  switch (event.type) {
    case 'tag-type-created':
    case 'tag-type-updated':
      return { ...state, tagTypes: withEntry(state.tagTypes, event.data.name, event.data) }
    case 'tag-type-deleted': {
      // Unleash cascades: the type's tags go with it.
      const type = event.preData.name
      let tags = state.tags
      for (const [key, tag] of state.tags) if (tag.type === type) tags = withoutEntry(tags, key)
      return { ...state, tagTypes: withoutEntry(state.tagTypes, type), tags }
    }
    default:
      return state
  }
}

export const tagKey = (tag: { type: string; value: string }) => `${tag.type}:${tag.value}`

// POST /api/admin/tags: a tag of an existing type that no flag carries and nobody created before.
export const decideCreateTag = (state: InstanceState, tag: { type: string; value: string }, carried: boolean, meta: CommandMeta): Result<EventDraft[]> => {
  if (!state.tagTypes.has(tag.type)) return fail(tagTypeNotFound(tag.type))
  if (carried || state.tags.has(tagKey(tag))) return fail(nameExists(`A tag with type ${tag.type} and value ${tag.value} already exists`))
  return ok([draft(meta, 'tag-created', { data: { type: tag.type, value: tag.value } })])
}

// A flag is about to carry these tags: each one the instance does not know yet is created first (Unleash's
// createTagIfNeeded), so the instance knows every tag ever used until it is deleted, as Unleash's tags table.
export const decideEnsureTags = (state: InstanceState, tags: readonly { type: string; value: string }[], meta: CommandMeta): Result<EventDraft[]> => {
  const events: EventDraft[] = []
  const created = new Set<string>()
  for (const tag of tags) {
    if (!state.tagTypes.has(tag.type)) return fail(tagTypeMissing(tag.type))
    const key = tagKey(tag)
    if (state.tags.has(key) || created.has(key)) continue
    created.add(key)
    events.push(draft(meta, 'tag-created', { data: { type: tag.type, value: tag.value } }))
  }
  return ok(events)
}

// DELETE /api/admin/tags/:type/:value: the route untags every flag in the same append.
export const decideDeleteTag = (state: InstanceState, tag: { type: string; value: string }, carried: boolean, meta: CommandMeta): Result<EventDraft[]> => {
  if (!carried && !state.tags.has(tagKey(tag))) return ok([])
  return ok([draft(meta, 'tag-deleted', { preData: { type: tag.type, value: tag.value } })])
}

export const evolveTags = (state: InstanceState, event: EventDraft): InstanceState => {
  if (event.type === 'tag-created') return { ...state, tags: withEntry(state.tags, tagKey(event.data), { type: event.data.type, value: event.data.value }) }
  if (event.type === 'tag-deleted') return { ...state, tags: withoutEntry(state.tags, tagKey(event.preData)) }
  return state
}

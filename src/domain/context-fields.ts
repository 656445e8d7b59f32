import type { UpsertContextField } from '../schemas/context-fields.js'
import { DomainError, badData, fail, nameExists, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { ContextField, InstanceState } from './instance-state.js'

const fieldFrom = (input: UpsertContextField, sortOrder: number, createdAt: string): ContextField => ({
  name: input.name,
  description: input.description ?? null,
  stickiness: input.stickiness,
  sortOrder: input.sortOrder ?? sortOrder,
  legalValues: input.legalValues,
  createdAt,
})

export const decideCreateContextField = (state: InstanceState, input: UpsertContextField, meta: CommandMeta): Result<EventDraft[]> => {
  if (state.contextFields.has(input.name)) return fail(nameExists(`A context field with the name ${input.name} already exists`))
  const values = input.legalValues.map((v) => v.value)
  if (new Set(values).size !== values.length) return fail(badData('"legalValues" must not hold the same value twice'))
  return ok([draft(meta, 'context-field-created', { data: fieldFrom(input, state.contextFields.size, meta.now) })])
}

// A PUT replaces the field as Unleash 8.2 does (side by side): stickiness, legal values and sort order
// left out go back to false, none and 0; a description left out is kept (Unleash never clears it then).
export const decideUpdateContextField = (state: InstanceState, name: string, input: UpsertContextField, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.contextFields.get(name)
  if (!current) return fail(notFound(`Could not find context field with name ${name}`))
  if (input.name !== name) return fail(badData('The name of a context field cannot be changed'))
  const values = input.legalValues.map((v) => v.value)
  if (new Set(values).size !== values.length) return fail(badData('"legalValues" must not hold the same value twice'))
  const next = fieldFrom({ ...input, description: input.description === undefined ? current.description : input.description }, 0, current.createdAt)
  if (JSON.stringify(next) === JSON.stringify(current)) return ok([])
  return ok([draft(meta, 'context-field-updated', { data: next, preData: current })])
}

// Unleash 8.2 (side by side): 409 while a strategy of an active flag has a constraint on the field.
export const decideDeleteContextField = (state: InstanceState, name: string, inUse: boolean, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.contextFields.get(name)
  if (!current) return fail(notFound(`Could not find context field with name ${name}`))
  if (inUse) return fail(new DomainError('ConflictError', 'This context field is in use by existing flags. To delete it, first remove its usage from all flags.'))
  return ok([draft(meta, 'context-field-deleted', { preData: current })])
}

import type { UpsertContextField } from '../schemas/context-fields.js'
import { badData, fail, nameExists, notFound, ok, type Result } from './errors.js'
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

export const decideUpdateContextField = (state: InstanceState, name: string, input: UpsertContextField, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.contextFields.get(name)
  if (!current) return fail(notFound(`Could not find context field with name ${name}`))
  if (input.name !== name) return fail(badData('The name of a context field cannot be changed'))
  const next = fieldFrom(input, current.sortOrder, current.createdAt)
  if (JSON.stringify(next) === JSON.stringify(current)) return ok([])
  return ok([draft(meta, 'context-field-updated', { data: next, preData: current })])
}

export const decideDeleteContextField = (state: InstanceState, name: string, meta: CommandMeta): Result<EventDraft[]> => {
  const current = state.contextFields.get(name)
  if (!current) return fail(notFound(`Could not find context field with name ${name}`))
  return ok([draft(meta, 'context-field-deleted', { preData: current })])
}

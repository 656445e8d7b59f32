import type { UpsertContextField } from '../schemas/context-fields.js'
import { decideCreateContextField } from './context-fields.js'
import { ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { withEntry } from './immutable.js'
import type { ContextField, InstanceState } from './instance-state.js'
import { decideImportTagTypes, type TagType } from './tag-types.js'

// An export changes nothing but is recorded, with what was handed out (Unleash: features-exported).
export const decideRecordExport = (data: unknown, meta: CommandMeta): Result<EventDraft[]> => ok([draft(meta, 'features-exported', { data })])

// What an import needs from the instance before its flags can be written: missing tag types and
// context fields. Existing ones are left alone (Unleash only creates the new ones).
export const decideImportPrerequisites = (
  state: InstanceState,
  tagTypes: TagType[],
  contextFields: UpsertContextField[],
  meta: CommandMeta,
): Result<EventDraft[]> => {
  const events = decideImportTagTypes(state, tagTypes, meta)
  let fields = state.contextFields
  for (const field of contextFields) {
    if (fields.has(field.name)) continue
    const decided = decideCreateContextField({ ...state, contextFields: fields }, field, meta)
    if (!decided.ok) return decided
    events.push(...decided.value)
    for (const event of decided.value) fields = withEntry(fields, event.data.name as string, event.data as ContextField)
  }
  return ok(events)
}

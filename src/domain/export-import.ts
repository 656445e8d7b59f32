import type { UpsertContextField } from '../schemas/context-fields.js'
import type { ExportSummary, FeatureExport } from './event-data.js'
import { decideCreateContextField } from './context-fields.js'
import { ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { withEntry } from './immutable.js'
import type { InstanceState } from './instance-state.js'
import { decideEnsureTags, decideImportTagTypes, evolveTagTypes } from './tag-types.js'
import type { TagType } from './built-in-types.js'
import type { Tag } from '../schemas/shared.js'

// Any Viewer may export, and each export is an event: past this size it records the flags' names,
// not the whole document (5,000 flags made 3 MB per export).
export const maxExportEventBytes = 256 * 1024
const maxNamesRecorded = 1000

// An export changes nothing but is recorded, with what was handed out (Unleash: features-exported).
export const decideRecordExport = (data: FeatureExport, environment: string, meta: CommandMeta): Result<EventDraft[]> => {
  if (JSON.stringify(data).length <= maxExportEventBytes) return ok([draft(meta, 'features-exported', { data })])
  const names = data.features.map((feature) => feature.name)
  const summary: ExportSummary = { environment, featureCount: names.length, features: names.slice(0, maxNamesRecorded), truncated: true }
  return ok([draft(meta, 'features-exported', { data: summary })])
}

// What an import needs from the instance before its flags can be written: missing tag types and
// context fields. Existing ones are left alone (Unleash only creates the new ones).
export type ImportPrerequisitesCommand = { type: 'import.prepare'; tagTypes: TagType[]; contextFields: UpsertContextField[]; tags: Tag[]; meta: CommandMeta }

export const decideImportPrerequisites = (state: InstanceState, { tagTypes, contextFields, tags, meta }: ImportPrerequisitesCommand): Result<EventDraft[]> => {
  const events = decideImportTagTypes(state, tagTypes, meta)
  let fields = state.contextFields
  for (const field of contextFields) {
    if (fields.has(field.name)) continue
    const decided = decideCreateContextField({ ...state, contextFields: fields }, field, meta)
    if (!decided.ok) return decided
    events.push(...decided.value)
    for (const event of decided.value) if (event.type === 'context-field-created') fields = withEntry(fields, event.data.name, event.data)
  }
  // The flags' tags, with the tag types just created.
  const created = decideEnsureTags(events.reduce(evolveTagTypes, state), tags, meta)
  if (!created.ok) return created
  return ok([...events, ...created.value])
}

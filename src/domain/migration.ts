import { ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'

// The first record of a log copied from another server: where from and when. It changes no state; it is
// history (GET /api/admin/events lists it, as Unleash lists its settings).
export interface MigratedFrom {
  id: 'migrated-from'
  value: { url: string; version: string | null; at: string }
}

export type MigrationCommand = { type: 'migration.record'; from: string; version: string | null; meta: CommandMeta }

export const decideRecordMigration = ({ from, version, meta }: MigrationCommand): Result<EventDraft[]> =>
  ok([draft(meta, 'setting-created', { data: { id: 'migrated-from', value: { url: from, version, at: meta.now } } })])

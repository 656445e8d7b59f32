import type { Tag } from '../schemas/shared.js'
import type { EventPayloads } from './event-data.js'
import type { DistributiveOmit } from './type-utils.js'

// Every state change is one of these records; the same records are what GET /api/admin/events lists.
export const eventTypes = [
  'application-created', 'feature-created', 'feature-deleted', 'feature-updated', 'feature-metadata-updated',
  'feature-variants-updated', 'feature-environment-variants-updated', 'feature-project-change', 'feature-archived',
  'feature-revived', 'feature-import', 'feature-tagged', 'feature-tag-import', 'feature-strategy-update',
  'feature-strategy-add', 'feature-strategy-remove', 'feature-type-updated', 'feature-completed', 'feature-uncompleted',
  'strategy-order-changed', 'drop-feature-tags', 'feature-untagged', 'feature-stale-on', 'feature-stale-off',
  'drop-features', 'feature-environment-enabled', 'feature-environment-disabled', 'strategy-created',
  'strategy-deleted', 'strategy-deprecated', 'strategy-reactivated', 'strategy-updated', 'strategy-import',
  'drop-strategies', 'context-field-created', 'context-field-updated', 'context-field-deleted',
  'project-access-added', 'project-access-user-roles-updated', 'project-access-group-roles-updated',
  'project-access-user-roles-deleted', 'project-access-group-roles-deleted', 'project-access-updated',
  'project-created', 'project-updated', 'project-deleted', 'project-import', 'project-user-added',
  'project-user-removed', 'project-user-role-changed', 'project-group-role-changed', 'project-group-added',
  'project-group-removed', 'role-created', 'role-updated', 'role-deleted', 'drop-projects', 'tag-created',
  'tag-deleted', 'tag-import', 'drop-tags', 'tag-type-created', 'tag-type-deleted', 'tag-type-updated',
  'tag-type-import', 'drop-tag-types', 'addon-config-created', 'addon-config-updated', 'addon-config-deleted',
  'db-pool-update', 'user-created', 'user-updated', 'user-deleted', 'drop-environments', 'environment-import',
  'environment-created', 'environment-updated', 'environment-deleted', 'segment-created', 'segment-updated',
  'segment-deleted', 'group-created', 'group-updated', 'group-deleted', 'group-user-added', 'group-user-removed',
  'setting-created', 'setting-updated', 'setting-deleted', 'client-metrics', 'client-register', 'pat-created',
  'pat-deleted', 'public-signup-token-created', 'public-signup-token-user-added', 'public-signup-token-updated',
  'change-request-created', 'change-request-discarded', 'change-added', 'change-discarded', 'change-edited',
  'change-request-rejected', 'change-request-approved', 'change-request-approval-added', 'change-request-cancelled',
  'change-request-sent-to-review', 'change-request-schedule-suspended', 'change-request-applied',
  'change-request-scheduled', 'change-request-scheduled-application-success',
  'change-request-scheduled-application-failure', 'change-request-configuration-updated', 'api-token-created',
  'api-token-updated', 'api-token-deleted', 'feature-favorited', 'feature-unfavorited', 'project-favorited',
  'project-unfavorited', 'features-exported', 'features-imported', 'service-account-created',
  'service-account-deleted', 'service-account-updated', 'feature-potentially-stale-on', 'feature-dependency-added',
  'feature-dependency-removed', 'feature-dependencies-removed', 'banner-created', 'banner-updated', 'banner-deleted',
  'project-environment-added', 'project-environment-removed', 'default-strategy-updated', 'segment-import',
  'signal-endpoint-created', 'signal-endpoint-updated', 'signal-endpoint-deleted', 'signal-endpoint-token-created',
  'signal-endpoint-token-updated', 'signal-endpoint-token-deleted', 'actions-created', 'actions-updated',
  'actions-deleted',
] as const

export type EventType = (typeof eventTypes)[number]

// The log is ours; the event list is Unleash's view of it. These records change state and are replayed
// like any other, but they are not Unleash events: GET /api/admin/events and the per-project and
// per-flag lists leave them out. The `internal:` prefix keeps them apart from every Unleash type.
export const internalRecordTypes = [
  'internal:change-request-title-updated',
  'internal:change-request-comment-added',
  'internal:feature-moved-out',
] as const

export type InternalRecordType = (typeof internalRecordTypes)[number]

export type RecordType = EventType | InternalRecordType

export const isInternalRecord = (type: string): type is InternalRecordType => type.startsWith('internal:')

interface Envelope {
  createdAt: string
  createdBy: string
  createdByUserId: number | null
  project?: string | null
  environment?: string | null
  featureName?: string | null
  tags?: Tag[]
}

type Carried<T extends RecordType> = T extends keyof EventPayloads ? EventPayloads[T] : {}
// Every record can be asked for its data, preData and hidden (replay-only facts that must never be
// listed, like a token's secret): undefined for the types that carry none.
type NoPayload = { data?: undefined; preData?: undefined; hidden?: undefined }

// One record type with what it carries (event-data.ts); narrowing a record on `type` gives its payload.
export type EventOf<T extends RecordType> = T extends RecordType ? { type: T } & Envelope & Omit<NoPayload, keyof Carried<T>> & Carried<T> : never

export type EventDraft = EventOf<RecordType>

export type EventRecord = EventDraft & { id: number }

// Who asked and when: stamped on every event a command produces.
export interface CommandMeta {
  now: string
  actor: { name: string; userId: number | null }
  // Whether the caller may write directly where change requests are required (SKIP_CHANGE_REQUEST).
  mayBypassChangeRequests?: (environment: string) => boolean
}

type DraftFields<T extends RecordType> = DistributiveOmit<EventOf<T>, 'type' | 'createdAt' | 'createdBy' | 'createdByUserId'>

// Each call is checked against its type's payload (the first signature); the spread of a generic
// cannot be checked against EventOf<T>, so the implementation returns a plain object.
export function draft<T extends RecordType>(meta: CommandMeta, type: T, fields: DraftFields<T>): EventOf<T>
export function draft(meta: CommandMeta, type: RecordType, fields: object): object {
  return {
    type,
    createdAt: meta.now,
    createdBy: meta.actor.name,
    createdByUserId: meta.actor.userId,
    ...fields,
  }
}

// The record of that type among a command's records: what a route answers with (the user it created).
export const recordOfType = <E extends EventDraft, T extends RecordType>(records: readonly E[], type: T): Extract<E, { type: T }> => {
  const found = records.find((record): record is Extract<E, { type: T }> => record.type === type)
  if (!found) throw new Error(`no ${type} record among ${records.map((record) => record.type).join(', ')}`)
  return found
}

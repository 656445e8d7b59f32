import type { ClientRegister } from '../schemas/client.js'
import { decideRegisterApplication, withApplication } from './applications.js'
import type { UpsertContextField } from '../schemas/context-fields.js'
import type { CreateEnvironment, UpdateEnvironment } from '../schemas/environments.js'
import type { FeatureExport } from './event-data.js'
import type { UpsertStrategyType } from '../schemas/strategy-types.js'
import type { Tag } from '../schemas/shared.js'
import { decideCreateContextField, decideDeleteContextField, decideUpdateContextField } from './context-fields.js'
import { decideCreateSegment, decideDeleteSegment, decideUpdateSegment, type SegmentCommand, type SegmentWorld } from './segments.js'
import {
  decideCreateStrategyType,
  decideDeleteStrategyType,
  decideDeprecateStrategyType,
  decideUpdateStrategyType,
} from './strategy-types.js'
import { decideCreateApiToken, decideDeleteApiToken, decideUpdateApiToken, hashTokenSecret, maskTokenSecret, type ApiTokenWorld, type CreateApiTokenCommand } from './api-tokens.js'
import { decideCreateEnvironment, decideDeleteEnvironment, decideToggleEnvironment, decideUpdateEnvironment } from './environments.js'
import type { Result } from './errors.js'
import type { DistributiveOmit } from './type-utils.js'
import { decidePeople, evolvePeople, type PeopleCommand } from './people.js'
import type { CommandMeta, EventDraft, EventOf } from './events.js'
import { withEntry, withoutEntry } from './immutable.js'
import type { ApiToken, InstanceState } from './instance-state.js'
import type { TagTypeInput, UpdateTagTypeInput } from '../schemas/tags.js'
import { decideCreateTag, decideCreateTagType, decideDeleteTag, decideDeleteTagType, decideEnsureTags, decideUpdateTagType, evolveTags, evolveTagTypes } from './tag-types.js'
import { decideUpdateFeatureTypeLifetime, evolveFeatureTypes } from './feature-types.js'
import { decideRecordMigration, type MigrationCommand } from './migration.js'
import { decideImportPrerequisites, decideRecordExport, type ImportPrerequisitesCommand } from './export-import.js'

export type InstanceCommand =
  | PeopleCommand
  | { type: 'environment.create'; input: CreateEnvironment; meta: CommandMeta }
  | { type: 'environment.update'; name: string; input: UpdateEnvironment; meta: CommandMeta }
  | { type: 'environment.toggle'; name: string; enabled: boolean; meta: CommandMeta }
  | { type: 'environment.delete'; name: string; meta: CommandMeta }
  | { type: 'application.register'; input: ClientRegister; meta: CommandMeta }
  | DistributiveOmit<CreateApiTokenCommand, 'world'>
  | { type: 'apiToken.update'; secretHash: string; expiresAt: string; meta: CommandMeta }
  | { type: 'apiToken.delete'; secretHash: string; meta: CommandMeta }
  | DistributiveOmit<SegmentCommand, 'world'>
  | { type: 'strategyType.create'; input: UpsertStrategyType; meta: CommandMeta }
  | { type: 'strategyType.update'; name: string; input: UpsertStrategyType; meta: CommandMeta }
  | { type: 'strategyType.delete'; name: string; inUse: boolean; meta: CommandMeta }
  | { type: 'strategyType.deprecate'; name: string; deprecated: boolean; meta: CommandMeta }
  | { type: 'contextField.create'; input: UpsertContextField; meta: CommandMeta }
  | { type: 'contextField.update'; name: string; input: UpsertContextField; meta: CommandMeta }
  | { type: 'contextField.delete'; name: string; inUse: boolean; meta: CommandMeta }
  | { type: 'tagType.create'; input: TagTypeInput; meta: CommandMeta }
  | { type: 'tagType.update'; name: string; input: UpdateTagTypeInput; meta: CommandMeta }
  | { type: 'tagType.delete'; name: string; inUse: boolean; meta: CommandMeta }
  | { type: 'tag.create'; tag: { type: string; value: string }; carried: boolean; meta: CommandMeta }
  | { type: 'tag.delete'; tag: { type: string; value: string }; carried: boolean; meta: CommandMeta }
  | { type: 'featureType.setLifetime'; id: string; lifetimeDays: number | null; meta: CommandMeta }
  | { type: 'features.recordExport'; data: FeatureExport; environment: string; meta: CommandMeta }
  | ImportPrerequisitesCommand
  | { type: 'tags.ensure'; tags: Tag[]; meta: CommandMeta }
  | MigrationCommand

// What instance decisions read of the projects: the instance actor reads it when it decides, so that
// no command carries a view of the world taken before it waited its turn.
export type InstanceWorld = ApiTokenWorld & SegmentWorld

export const decideInstance = (state: InstanceState, command: InstanceCommand, world: InstanceWorld): Result<EventDraft[]> => {
  switch (command.type) {
    case 'environment.create':
      return decideCreateEnvironment(state, command.input, command.meta)
    case 'environment.update':
      return decideUpdateEnvironment(state, command.name, command.input, command.meta)
    case 'environment.toggle':
      return decideToggleEnvironment(state, command.name, command.enabled, command.meta)
    case 'environment.delete':
      return decideDeleteEnvironment(state, command.name, command.meta)
    case 'application.register':
      return decideRegisterApplication(state, command.input, command.meta)
    case 'apiToken.create':
      return decideCreateApiToken(state, { ...command, world })
    case 'apiToken.update':
      return decideUpdateApiToken(state, command.secretHash, command.expiresAt, command.meta)
    case 'apiToken.delete':
      return decideDeleteApiToken(state, command.secretHash, command.meta)
    case 'segment.create':
      return decideCreateSegment(state, { ...command, world })
    case 'segment.update':
      return decideUpdateSegment(state, { ...command, world })
    case 'segment.delete':
      return decideDeleteSegment(state, { ...command, world })
    case 'strategyType.create':
      return decideCreateStrategyType(state, command.input, command.meta)
    case 'strategyType.update':
      return decideUpdateStrategyType(state, command.name, command.input, command.meta)
    case 'strategyType.delete':
      return decideDeleteStrategyType(state, command.name, command.inUse, command.meta)
    case 'strategyType.deprecate':
      return decideDeprecateStrategyType(state, command.name, command.deprecated, command.meta)
    case 'contextField.create':
      return decideCreateContextField(state, command.input, command.meta)
    case 'contextField.update':
      return decideUpdateContextField(state, command.name, command.input, command.meta)
    case 'contextField.delete':
      return decideDeleteContextField(state, command.name, command.inUse, command.meta)
    case 'tagType.create':
      return decideCreateTagType(state, command.input, command.meta)
    case 'tagType.update':
      return decideUpdateTagType(state, command.name, command.input, command.meta)
    case 'tag.create':
      return decideCreateTag(state, command.tag, command.carried, command.meta)
    case 'tag.delete':
      return decideDeleteTag(state, command.tag, command.carried, command.meta)
    case 'tagType.delete':
      return decideDeleteTagType(state, command.name, command.inUse, command.meta)
    case 'featureType.setLifetime':
      return decideUpdateFeatureTypeLifetime(state, command.id, command.lifetimeDays, command.meta)
    case 'features.recordExport':
      return decideRecordExport(command.data, command.environment, command.meta)
    case 'import.prepare':
      return decideImportPrerequisites(state, command)
    case 'tags.ensure':
      return decideEnsureTags(state, command.tags, command.meta)
    case 'migration.record':
      return decideRecordMigration(command)
    default:
      return decidePeople(state.people, command)
  }
}

type TokenEvent = EventOf<'api-token-created' | 'api-token-updated' | 'api-token-deleted'>

// Logs written before secrets were hashed carry the plain secret: hashed here as they are replayed.
const tokenKeyOf = ({ hidden }: TokenEvent): { secretHash: string; maskedSecret: string } =>
  'secretHash' in hidden
    ? { secretHash: hidden.secretHash, maskedSecret: hidden.maskedSecret }
    : { secretHash: hashTokenSecret(hidden.secret), maskedSecret: maskTokenSecret(hidden.secret) }

const tokenFrom = (event: EventOf<'api-token-created' | 'api-token-updated'>): ApiToken => {
  const { project: _joined, alias: _alias, ...rest } = event.data
  return { ...rest, ...tokenKeyOf(event) }
}

export const evolveInstance = (state: InstanceState, event: EventDraft): InstanceState => {
  switch (event.type) {
    case 'environment-created':
    case 'environment-updated':
      return { ...state, environments: withEntry(state.environments, event.data.name, event.data) }
    case 'environment-deleted':
      return { ...state, environments: withoutEntry(state.environments, String(event.environment)) }
    case 'api-token-created':
    case 'api-token-updated':
      return { ...state, apiTokens: withEntry(state.apiTokens, tokenKeyOf(event).secretHash, tokenFrom(event)) }
    case 'api-token-deleted':
      return { ...state, apiTokens: withoutEntry(state.apiTokens, tokenKeyOf(event).secretHash) }
    case 'segment-created':
    case 'segment-updated':
      return { ...state, segments: withEntry(state.segments, event.data.id, event.data) }
    case 'segment-deleted':
      return { ...state, segments: withoutEntry(state.segments, event.preData.id) }
    case 'strategy-created':
    case 'strategy-updated':
    case 'strategy-deprecated':
    case 'strategy-reactivated':
      return { ...state, strategyTypes: withEntry(state.strategyTypes, event.data.name, event.data) }
    case 'strategy-deleted':
      return { ...state, strategyTypes: withoutEntry(state.strategyTypes, event.preData.name) }
    case 'context-field-created':
    case 'context-field-updated':
      return { ...state, contextFields: withEntry(state.contextFields, event.data.name, event.data) }
    case 'context-field-deleted':
      return { ...state, contextFields: withoutEntry(state.contextFields, event.preData.name) }
    case 'tag-type-created':
    case 'tag-type-updated':
    case 'tag-type-deleted':
      return evolveTagTypes(state, event)
    case 'tag-created':
    case 'tag-deleted':
      return evolveTags(state, event)
    case 'feature-type-updated':
      return evolveFeatureTypes(state, event)
    case 'application-created':
      return withApplication(state, event)
    default:
      return isPeopleEvent(event.type) ? { ...state, people: evolvePeople(state.people, event) } : state
  }
}

const peoplePrefixes = ['user-', 'service-account-', 'role-', 'group-', 'pat-', 'public-signup-token-']
const isPeopleEvent = (type: string) => peoplePrefixes.some((prefix) => type.startsWith(prefix))

// Which actor owns an event when the log is replayed: instance-wide areas, else the event's project.
const instancePrefixes = ['application-created', 'environment-', 'api-token-', 'segment-', 'strategy-created', 'strategy-updated', 'strategy-deleted', 'strategy-deprecated', 'strategy-reactivated', 'context-field-', 'user-', 'role-', 'group-', 'pat-', 'public-signup-token-', 'tag-type-', 'service-account-', 'feature-type-updated']

export const isInstanceEvent = (type: string): boolean => instancePrefixes.some((prefix) => type.startsWith(prefix))

// Replay routing: every tag-created and tag-deleted is the instance's (older logs mark those recorded
// when a flag first carried a tag onFlag: the instance knows those tags too, as Unleash's tags table).
export const ownedByInstance = (record: { type: string }): boolean => isInstanceEvent(record.type) || record.type === 'tag-created' || record.type === 'tag-deleted'

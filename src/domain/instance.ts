import type { CreateApiToken } from '../schemas/api-tokens.js'
import type { CreateEnvironment, UpdateEnvironment } from '../schemas/environments.js'
import { decideCreateApiToken, decideDeleteApiToken, decideUpdateApiToken, type ApiTokenWorld } from './api-tokens.js'
import { decideCreateEnvironment, decideToggleEnvironment, decideUpdateEnvironment } from './environments.js'
import type { Result } from './errors.js'
import type { CommandMeta, EventDraft } from './events.js'
import { withEntry, withoutEntry } from './immutable.js'
import type { ApiToken, Environment, InstanceState } from './instance-state.js'

export type InstanceCommand =
  | { type: 'environment.create'; input: CreateEnvironment; meta: CommandMeta }
  | { type: 'environment.update'; name: string; input: UpdateEnvironment; meta: CommandMeta }
  | { type: 'environment.toggle'; name: string; enabled: boolean; meta: CommandMeta }
  | { type: 'apiToken.create'; input: CreateApiToken; random: string; world: ApiTokenWorld; meta: CommandMeta }
  | { type: 'apiToken.update'; secret: string; expiresAt: string; meta: CommandMeta }
  | { type: 'apiToken.delete'; secret: string; meta: CommandMeta }

export const decideInstance = (state: InstanceState, command: InstanceCommand): Result<EventDraft[]> => {
  switch (command.type) {
    case 'environment.create':
      return decideCreateEnvironment(state, command.input, command.meta)
    case 'environment.update':
      return decideUpdateEnvironment(state, command.name, command.input, command.meta)
    case 'environment.toggle':
      return decideToggleEnvironment(state, command.name, command.enabled, command.meta)
    case 'apiToken.create':
      return decideCreateApiToken(state, command.input, command.random, command.world, command.meta)
    case 'apiToken.update':
      return decideUpdateApiToken(state, command.secret, command.expiresAt, command.meta)
    case 'apiToken.delete':
      return decideDeleteApiToken(state, command.secret, command.meta)
  }
}

const tokenFrom = (event: EventDraft): ApiToken => {
  const { project: _joined, alias: _alias, ...rest } = event.data
  return { ...rest, secret: String(event.hidden?.secret) }
}

export const evolveInstance = (state: InstanceState, event: EventDraft): InstanceState => {
  switch (event.type) {
    case 'environment-created':
    case 'environment-updated':
      return { ...state, environments: withEntry(state.environments, event.data.name, event.data as Environment) }
    case 'environment-deleted':
      return { ...state, environments: withoutEntry(state.environments, String(event.environment)) }
    case 'api-token-created':
    case 'api-token-updated':
      return { ...state, apiTokens: withEntry(state.apiTokens, String(event.hidden?.secret), tokenFrom(event)) }
    case 'api-token-deleted':
      return { ...state, apiTokens: withoutEntry(state.apiTokens, String(event.hidden?.secret)) }
    default:
      return state
  }
}

// Which actor owns an event when the log is replayed: instance-wide areas, else the event's project.
const instancePrefixes = ['environment-', 'api-token-', 'segment-', 'strategy-created', 'strategy-updated', 'strategy-deleted', 'strategy-deprecated', 'strategy-reactivated', 'context-field-', 'user-', 'role-', 'group-', 'pat-', 'public-signup-token-', 'tag-type-', 'service-account-']

export const isInstanceEvent = (type: string): boolean => instancePrefixes.some((prefix) => type.startsWith(prefix))

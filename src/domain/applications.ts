import type { ClientRegister } from '../schemas/client.js'
import { ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft, type EventOf } from './events.js'
import type { InstanceState } from './instance-state.js'

// Past this many known applications a new name is still served but no longer recorded: a client
// token inventing names must not grow the log and the instance state without end.
export const maxApplications = 10_000

// The first registration of an application name records application-created (Unleash announces new
// applications once); later ones are metrics, kept in memory.
export const decideRegisterApplication = (state: InstanceState, input: ClientRegister, meta: CommandMeta): Result<EventDraft[]> => {
  if (state.applications.has(input.appName) || state.applications.size >= maxApplications) return ok([])
  const data = { appName: input.appName, strategies: input.strategies, sdkVersion: input.sdkVersion ?? null, createdBy: meta.actor.name }
  return ok([draft(meta, 'application-created', { data })])
}

export const withApplication = (state: InstanceState, event: EventOf<'application-created'>): InstanceState =>
  ({ ...state, applications: new Set([...state.applications, event.data.appName]) })

import type { DomainError } from '../domain/errors.js'
import type { EventDraft } from '../domain/events.js'

// What a machine emits for each command it handles, synchronously inside send().
export type Decision = { type: 'decided'; events: EventDraft[] } | { type: 'rejected'; error: DomainError }

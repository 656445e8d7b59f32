import { fromPromise } from 'xstate'
import { DomainError, type Result } from '../domain/errors.js'
import type { EventDraft, EventRecord } from '../domain/events.js'

// A caller waiting for the answer to its command is known to the actor by a ticket; the registry
// keeps the promise that the ticket settles. Commands an actor gives itself (timers) have none.
export type Ticket = number

// A command as the registry posts it to an actor, and the job it becomes in the actor's queue.
export interface Posted<C> {
  command: C
  ticket: Ticket
}
export const commandJob = <C>({ command, ticket }: Posted<C>) => ({ kind: 'command' as const, command, ticket: ticket as Ticket | undefined })

// One accepted command's events inside an append: records[from, from + count).
export interface Answer {
  ticket: Ticket | undefined
  from: number
  count: number
}

// The decision in flight: what the actor appended and will become once the append commits.
export interface InFlight<S> {
  state: S
  events: EventDraft[]
  answers: Answer[]
}

// What an actor reports (XState `emit`, heard by the registry). Emitted events run after the
// actor's snapshot is updated, so a listener reading the actor sees the state it reports.
export type Report =
  | { type: 'refused'; ticket: Ticket | undefined; error: DomainError }
  | { type: 'answered'; ticket: Ticket | undefined }
  | { type: 'committed'; records: EventRecord[]; commitSeconds: number; answers: Answer[] }
  | { type: 'commitFailed'; error: unknown; tickets: (Ticket | undefined)[] }
  | { type: 'granted'; ticket: Ticket }

// The one append every actor invokes: the registry provides the implementation over the EventLog.
export interface AppendInput {
  events: EventDraft[]
}
export interface Appended {
  records: EventRecord[]
  commitSeconds: number
}
// Without a log (a machine run on its own, in a test) an append never commits.
export const noLog = fromPromise<Appended, AppendInput>(async () => {
  throw new Error('this actor has no log to append to')
})

export const commitFailure = () =>
  new DomainError('ServiceUnavailableError', 'The change could not be stored (is the disk full?); nothing was changed. Try again later.')

// Commands that queued up while an actor committed, decided in order, each against the state the one
// before it left; a refusal refuses only its own command.
export interface Batch<S> {
  state: S
  events: EventDraft[]
  accepted: Answer[]
  refused: { ticket: Ticket | undefined; error: DomainError }[]
}

export const decideInOrder = <S, C>(
  state: S,
  commands: readonly { command: C; ticket: Ticket | undefined }[],
  decide: (state: S, command: C) => Result<{ events: EventDraft[]; state: S }>,
): Batch<S> => {
  const batch: Batch<S> = { state, events: [], accepted: [], refused: [] }
  for (const { command, ticket } of commands) {
    const result = decide(batch.state, command)
    if (!result.ok) {
      batch.refused.push({ ticket, error: result.error })
      continue
    }
    batch.accepted.push({ ticket, from: batch.events.length, count: result.value.events.length })
    batch.events.push(...result.value.events)
    batch.state = result.value.state
  }
  return batch
}

// The commands at the head of a queue, up to the first job that is not a command.
export const leadingCommands = <J extends { kind: string }>(queue: readonly J[]): J[] => {
  const end = queue.findIndex((job) => job.kind !== 'command')
  return end < 0 ? [...queue] : queue.slice(0, end)
}

// Group commit: how many commands an actor waits for before it decides, and how long at most. When
// an append of n commands commits with m more waiting, the actor expects n + m: the m, and the n
// callers it is about to answer coming back. It waits for them for at most as long as that commit
// took: when they come back within it, one sync serves them all instead of two (under steady load the
// callers otherwise split into groups that take turns, each paying a whole commit); when they do not,
// the wait costs at most one commit and the next expectation is what did come. A hold or plan behind
// the commands is never kept waiting.
export interface Gathering {
  expected: number
  waitMs: number
}
export const firstGathering: Gathering = { expected: 1, waitMs: 0 }
const longestGatherMs = 20
export const gatheringAfter = (committed: number, commitSeconds: number): Gathering => ({
  expected: Math.max(1, committed),
  waitMs: Math.min(longestGatherMs, Math.max(0, commitSeconds * 1000)),
})
export const gathered = <J extends { kind: string }>(queue: readonly J[], gathering: Gathering): boolean => {
  const commands = leadingCommands(queue).length
  return commands < queue.length || commands >= gathering.expected
}

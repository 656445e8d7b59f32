import { initialTransition, transition, type AnyStateMachine, type SnapshotFrom } from 'xstate'
import type { Report } from '../../src/actors/jobs.js'
import type { DomainError } from '../../src/domain/errors.js'
import type { EventDraft } from '../../src/domain/events.js'

// Driving a machine with XState's pure transition(): no actor is started and no action runs; what
// the machine reports is read from the `xstate.emit` actions it returns, and its append is "committed"
// by giving it the done event the invoked append would send.

// What a command came to: decided (with the events committed for it) or rejected.
export type Decision = { type: 'decided'; events: EventDraft[] } | { type: 'rejected'; error: DomainError }

export const reportsOf = (actions: readonly { type: string; params?: unknown }[]): Report[] =>
  actions.filter((a) => a.type === 'xstate.emit').map((a) => (a.params as { event: Report }).event)

export const decisionsOf = (reports: readonly Report[]): Decision[] =>
  reports.flatMap((report): Decision[] => {
    if (report.type === 'refused') return [{ type: 'rejected', error: report.error }]
    if (report.type === 'answered') return [{ type: 'decided', events: [] }]
    if (report.type === 'committed') {
      return report.answers.map(({ from, count }) => ({ type: 'decided', events: report.records.slice(from, from + count).map(({ id: _id, ...event }) => event) }))
    }
    return []
  })

type WithInFlight = { context: { inFlight?: { events: EventDraft[] } } }

// The done event of the invoked append, with the records numbered from `firstId`.
export const appendDone = (events: readonly EventDraft[], firstId = 1) => ({
  type: 'xstate.done.actor.append',
  actorId: 'append',
  output: { records: events.map((event, i) => ({ ...event, id: firstId + i })), commitSeconds: 0 },
})

export interface Step<M extends AnyStateMachine> {
  // The snapshot once the command is decided and, if it appended, committed.
  next: SnapshotFrom<M>
  // The snapshot while the append is in flight (undefined when nothing was appended).
  committing: SnapshotFrom<M> | undefined
  reports: Report[]
  decisions: Decision[]
}

type Action = { type: string; params?: unknown }

// An idle actor gathers the commands of one turn of the event loop before it decides them: a delayed
// event (`after: { gather }`), delivered here as the actor's clock would deliver it.
const gatheringOf = (actions: readonly Action[]) =>
  actions.find((a) => a.type === 'xstate.raise' && String((a.params as { event?: { type?: string } }).event?.type).includes('.gathering'))

// transition(), then the turn of the event loop that ends any gathering: the snapshot with the
// commands decided, and every action on the way.
export const decideNow = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>, event: unknown): [SnapshotFrom<M>, Action[]] => {
  let [next, actions] = transition(machine, snapshot, event as never) as [SnapshotFrom<M>, Action[]]
  const isGathering = (snapshot: SnapshotFrom<M>) => JSON.stringify((snapshot as { value: unknown }).value).includes('gathering')
  for (let gather = gatheringOf(actions); gather && isGathering(next); gather = gatheringOf(actions)) {
    const [after, more] = transition(machine, next, (gather.params as { event: never }).event) as [SnapshotFrom<M>, Action[]]
    next = after
    actions = [...actions.filter((a) => a !== gather), ...more]
  }
  return [next, actions]
}

export const step = <M extends AnyStateMachine>(machine: M, snapshot: SnapshotFrom<M>, event: unknown): Step<M> => {
  const [decided, actions] = decideNow(machine, snapshot, event)
  const reports = reportsOf(actions)
  const inFlight = (decided as WithInFlight).context.inFlight
  if (!inFlight || inFlight.events.length === 0) return { next: decided, committing: undefined, reports, decisions: decisionsOf(reports) }
  const [next, commitActions] = decideNow(machine, decided, appendDone(inFlight.events))
  reports.push(...reportsOf(commitActions))
  return { next, committing: decided, reports, decisions: decisionsOf(reports) }
}

export const start = <M extends AnyStateMachine>(machine: M, input: unknown): SnapshotFrom<M> => initialTransition(machine, input as never)[0]

// A command as an actor takes it.
export const command = <C>(command: C, ticket?: number) => ({ type: 'command' as const, command, ...(ticket !== undefined && { ticket }) })

// A sequence of commands to one machine, as the registry would send them.
export class Driver<M extends AnyStateMachine> {
  snapshot: SnapshotFrom<M>
  readonly decisions: Decision[] = []

  constructor(
    private readonly machine: M,
    input: unknown,
  ) {
    this.snapshot = start(machine, input)
  }

  send(commandInput: unknown): Decision[] {
    const { next, decisions } = step(this.machine, this.snapshot, command(commandInput))
    this.snapshot = next
    this.decisions.push(...decisions)
    return decisions
  }
}

// The node of a region (`life`, `writer`) as one name: `scheduled` for { scheduled: 'waiting' }.
export const nodeOf = (snapshot: { value: unknown }, path: string[]): string => {
  let value: unknown = snapshot.value
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return String(value)
    value = (value as Record<string, unknown>)[key]
  }
  return typeof value === 'string' ? value : Object.keys(value as object)[0]
}

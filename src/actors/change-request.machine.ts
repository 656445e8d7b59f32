import { assign, enqueueActions, setup } from 'xstate'
import type { ChangeRequest } from '../domain/change-request-state.js'
import { decideChangeRequest, evolveChangeRequest, type ChangeRequestCommand, type ChangeRequestCommandType } from '../domain/change-requests.js'
import { DomainError, fail, notFound, ok, type Result } from '../domain/errors.js'
import type { EventDraft } from '../domain/events.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { ProjectState } from '../domain/project-state.js'
import type { ChangeRequestStateName } from '../schemas/change-requests.js'
import { noAcquire, type Participant } from './instance.machine.js'
import { commandJob, decideInOrder, leadingCommands, noLog, type Appended, type InFlight, type Posted, type Report, type Ticket } from './jobs.js'
import { decideApply, heldForApply, instanceKey, type ApplyPlan } from './plans.js'
import type { ProjectEnv } from './project.machine.js'

const stateNodes: Record<ChangeRequestStateName, string> = {
  Draft: 'draft',
  'In review': 'inReview',
  Approved: 'approved',
  Scheduled: 'scheduled',
  Applied: 'applied',
  Cancelled: 'cancelled',
  Rejected: 'rejected',
}

const verbs: Record<ChangeRequestCommandType, string> = {
  'changeRequest.create': 'created again',
  'change.add': 'given new changes',
  'change.edit': 'edited',
  'change.discard': 'have changes removed',
  'title.set': 'retitled',
  'comment.add': 'commented on',
  discard: 'discarded',
  'state.review': 'sent to review',
  'state.approve': 'approved',
  'state.reject': 'rejected',
  'state.cancel': 'cancelled',
  'state.schedule': 'scheduled',
  'state.apply': 'applied',
  'schedule.fail': 'marked as failed',
  'schedule.suspend': 'suspended',
}

// The request's life: which steps each state takes. The rules within a step are decideChangeRequest's.
// Steps that queued up are decided one after another, each in the state the one before left, so
// the table is read per step rather than by the machine's node (which follows the committed state).
export const stepsTaken: Record<ChangeRequestStateName | 'absent', readonly ChangeRequestCommandType[]> = {
  absent: ['changeRequest.create'],
  Draft: ['change.add', 'change.edit', 'change.discard', 'title.set', 'comment.add', 'discard', 'state.review', 'state.cancel'],
  'In review': ['change.edit', 'change.discard', 'title.set', 'comment.add', 'state.approve', 'state.reject', 'state.cancel'],
  Approved: ['comment.add', 'state.reject', 'state.cancel', 'state.schedule', 'state.apply'],
  Scheduled: ['comment.add', 'state.reject', 'state.cancel', 'state.schedule', 'state.apply', 'schedule.fail', 'schedule.suspend'],
  Applied: ['comment.add'],
  Cancelled: ['comment.add'],
  Rejected: ['comment.add'],
}

export const refusedInState = (request: ChangeRequest | undefined, type: ChangeRequestCommandType): DomainError | undefined => {
  if (stepsTaken[request?.state ?? 'absent'].includes(type)) return undefined
  return request
    ? new DomainError('BadDataError', `Change request ${request.id} is "${request.state}", so it cannot be ${verbs[type]}.`, [
        { message: `refused transition: ${type} in state ${request.state}` },
      ])
    : notFound('Could not find the change request')
}

export const decideStep = (request: ChangeRequest | undefined, command: ChangeRequestCommand): Result<{ events: EventDraft[]; state: ChangeRequest | undefined }> => {
  const refusal = refusedInState(request, command.type)
  if (refusal) return fail(refusal)
  const result = decideChangeRequest(request, command)
  return result.ok ? ok({ events: result.value, state: result.value.reduce(evolveChangeRequest, request) }) : result
}

// Jobs the request gives itself when its schedule falls due are marked `scheduled`: one at a time.
export type ChangeRequestJob =
  | { kind: 'command'; command: ChangeRequestCommand; ticket: Ticket | undefined; scheduled?: boolean }
  | { kind: 'apply'; plan: ApplyPlan; ticket: Ticket | undefined; scheduled?: boolean }

export interface ChangeRequestEnv {
  project: ProjectEnv
  // The instance as the world sees it, for an application that changes no segment (and so holds no instance).
  instance(): InstanceState
  // What a schedule that fell due becomes (see change-request-schedule.ts); without it, no timer.
  schedule?: { everyMs: number; clock(): Date; due(request: ChangeRequest, now: Date): ChangeRequestJob }
}

export type ChangeRequestEvent =
  | { type: 'command'; command: ChangeRequestCommand; ticket?: Ticket }
  | { type: 'commands'; commands: readonly Posted<ChangeRequestCommand>[] }
  // Applying the request: it holds its project (and the instance for segment changes) meanwhile.
  | { type: 'apply'; plan: ApplyPlan; ticket?: Ticket }
  | { type: 'replicated'; request: ChangeRequest | undefined }

export interface ChangeRequestContext {
  id: number
  // The committed request.
  request: ChangeRequest | undefined
  queue: readonly ChangeRequestJob[]
  inFlight: (InFlight<ChangeRequest | undefined> & { scheduled: boolean; held?: ReadonlyMap<string, unknown> }) | undefined
  plan: Extract<ChangeRequestJob, { kind: 'apply' }> | undefined
  participants: readonly Participant[]
  env: ChangeRequestEnv | undefined
}

const isIn = (context: ChangeRequestContext, state: ChangeRequestStateName | undefined) => context.request?.state === state

// The life node always mirrors the committed request.state; after each commit it follows.
const follow = (self: ChangeRequestStateName | undefined) =>
  (Object.keys(stateNodes) as ChangeRequestStateName[])
    .filter((state) => state !== self)
    .map((state) => ({ guard: { type: 'isIn' as const, params: { state } }, target: `#changeRequest.life.${stateNodes[state]}` }))

const withScheduledFailure = (queue: readonly ChangeRequestJob[], job: { ticket: Ticket | undefined; plan: ApplyPlan }, error: DomainError): ChangeRequestJob[] => [
  { kind: 'command', command: { ...job.plan.step, type: 'schedule.fail', reason: error.message } as ChangeRequestCommand, ticket: undefined, scheduled: true },
  ...queue,
]

const busyWithSchedule = (context: ChangeRequestContext) =>
  context.queue.some((job) => job.scheduled) || context.plan?.scheduled === true || context.inFlight?.scheduled === true

export const changeRequestMachine = setup({
  types: {
    context: {} as ChangeRequestContext,
    input: {} as { id?: number; request: ChangeRequest | undefined; env?: ChangeRequestEnv },
    events: {} as ChangeRequestEvent,
    emitted: {} as Report,
  },
  actors: { append: noLog, acquire: noAcquire },
  delays: {
    // The next turn of the event loop (the registry's clock runs a delay of 0 with setImmediate).
    gather: 0,
    // Until the time comes, or a tick of the scheduler's granularity (the clock may be moved).
    scheduleTick: ({ context }) => {
      const schedule = context.env?.schedule
      if (!schedule) return 60_000
      const due = Date.parse(context.request?.schedule?.scheduledAt ?? '')
      const left = Number.isNaN(due) ? schedule.everyMs : due - schedule.clock().getTime()
      return Math.max(0, Math.min(schedule.everyMs, left))
    },
  },
  guards: {
    isIn: ({ context }, params: { state: ChangeRequestStateName }) => isIn(context, params.state),
    commandFirst: ({ context }) => context.queue[0]?.kind === 'command',
    applyFirst: ({ context }) => context.queue[0]?.kind === 'apply',
    applyRefused: ({ context }) => context.queue[0]?.kind === 'apply' && refusedInState(context.request, 'state.apply') !== undefined,
    hasInFlight: ({ context }) => context.inFlight !== undefined,
    hasScheduler: ({ context }) => context.env?.schedule !== undefined,
  },
  actions: {
    enqueue: assign({
      queue: ({ context, event }) => {
        if (event.type === 'command') return [...context.queue, { kind: 'command' as const, command: event.command, ticket: event.ticket }]
        if (event.type === 'commands') return [...context.queue, ...event.commands.map(commandJob)]
        if (event.type === 'apply') return [...context.queue, { kind: 'apply' as const, plan: event.plan, ticket: event.ticket }]
        return context.queue
      },
    }),
    decideQueued: enqueueActions(({ context, enqueue }) => {
      const jobs = leadingCommands(context.queue) as Extract<ChangeRequestJob, { kind: 'command' }>[]
      const batch = decideInOrder(context.request, jobs, decideStep)
      for (const { ticket, error } of batch.refused) enqueue.emit({ type: 'refused', ticket, error })
      const inFlight =
        batch.events.length > 0 ? { state: batch.state, events: batch.events, answers: batch.accepted, scheduled: jobs.some((job) => job.scheduled) } : undefined
      if (!inFlight) for (const { ticket } of batch.accepted) enqueue.emit({ type: 'answered', ticket })
      enqueue.assign({ queue: context.queue.slice(jobs.length), inFlight })
    }),
    // Applying is refused for the request's state before anything is held.
    refuseApply: enqueueActions(({ context, enqueue }) => {
      const job = context.queue[0] as Extract<ChangeRequestJob, { kind: 'apply' }>
      const error = refusedInState(context.request, 'state.apply')!
      enqueue.emit({ type: 'refused', ticket: job.ticket, error })
      enqueue.assign({ queue: job.scheduled ? withScheduledFailure(context.queue.slice(1), job, error) : context.queue.slice(1) })
    }),
    takePlan: assign(({ context }) => ({ plan: context.queue[0] as Extract<ChangeRequestJob, { kind: 'apply' }>, queue: context.queue.slice(1) })),
    holdParticipants: assign({ participants: ({ event }) => (event as unknown as { output: Participant[] }).output }),
    decidePlan: enqueueActions(({ context, enqueue }) => {
      const job = context.plan!
      const env = context.env!
      const held = new Map(context.participants.map((p) => [p.key, p.state]))
      const instance = held.has(instanceKey) ? (held.get(instanceKey) as InstanceState) : env.instance()
      const project = held.get(`project:${job.plan.projectId}`) as ProjectState | undefined
      const result = decideApply(env.project, context.request, project, instance, job.plan)
      if (!result.ok) {
        for (const p of context.participants) if (p.ref) enqueue.sendTo(p.ref, { type: 'release', committed: false })
        enqueue.emit({ type: 'refused', ticket: job.ticket, error: result.error })
        // A scheduled application that cannot be applied is marked failed with the reason.
        enqueue.assign({ plan: undefined, participants: [], queue: job.scheduled ? withScheduledFailure(context.queue, job, result.error) : context.queue })
        return
      }
      const decidedStates = new Map<string, unknown>([[instanceKey, result.value.instance], [`project:${job.plan.projectId}`, result.value.projects.get(job.plan.projectId)]])
      for (const p of context.participants) if (p.ref) enqueue.sendTo(p.ref, { type: 'lend', state: decidedStates.get(p.key) })
      const events = result.value.events
      enqueue.assign({ inFlight: { state: result.value.request, events, answers: [{ ticket: job.ticket, from: 0, count: events.length }], scheduled: job.scheduled === true, held: decidedStates } })
    }),
    commit: enqueueActions(({ context, event, enqueue }) => {
      const { records, commitSeconds } = (event as unknown as { output: Appended }).output
      const inFlight = context.inFlight!
      for (const p of context.participants) if (p.ref) enqueue.sendTo(p.ref, { type: 'release', committed: true, state: inFlight.held?.get(p.key) })
      enqueue.assign({ request: inFlight.state, inFlight: undefined, plan: undefined, participants: [] })
      enqueue.emit({ type: 'committed', records, commitSeconds, answers: inFlight.answers })
    }),
    dropInFlight: enqueueActions(({ context, event, enqueue }) => {
      for (const p of context.participants) if (p.ref) enqueue.sendTo(p.ref, { type: 'release', committed: false })
      enqueue.emit({ type: 'commitFailed', error: (event as unknown as { error: unknown }).error, tickets: context.inFlight!.answers.map((a) => a.ticket) })
      enqueue.assign({ inFlight: undefined, plan: undefined, participants: [] })
    }),
    abandonPlan: enqueueActions(({ context, event, enqueue }) => {
      enqueue.emit({ type: 'commitFailed', error: (event as unknown as { error: unknown }).error, tickets: [context.plan?.ticket] })
      enqueue.assign({ plan: undefined, participants: [] })
    }),
    replicate: assign({ request: ({ context, event }) => (event.type === 'replicated' ? event.request : context.request) }),
    // The schedule's timer: once due, the request gives itself what Unleash's scheduler would do,
    // once (a job already queued or in flight is not given again; after it the schedule is no longer
    // pending, or, when its commit failed, the next tick tries again).
    checkSchedule: enqueueActions(({ context, enqueue }) => {
      const schedule = context.env?.schedule
      const request = context.request
      if (!schedule || !request || request.state !== 'Scheduled' || request.schedule?.status !== 'pending') return
      const now = schedule.clock()
      if (Date.parse(request.schedule.scheduledAt) > now.getTime() || busyWithSchedule(context)) return
      enqueue.assign({ queue: [...context.queue, schedule.due(request, now)] })
    }),
  },
}).createMachine({
  id: 'changeRequest',
  context: ({ input }) => ({
    id: input.id ?? input.request?.id ?? 0,
    request: input.request,
    queue: [],
    inFlight: undefined,
    plan: undefined,
    participants: [],
    env: input.env,
  }),
  type: 'parallel',
  on: {
    command: { actions: 'enqueue' },
    commands: { actions: 'enqueue' },
    apply: { actions: 'enqueue' },
  },
  states: {
    life: {
      initial: 'absent',
      states: {
        absent: { always: follow(undefined) },
        draft: { always: follow('Draft') },
        inReview: { always: follow('In review') },
        approved: { always: follow('Approved') },
        // A scheduled application is this actor's delayed transition, armed again from the
        // committed schedule at every start.
        scheduled: {
          always: follow('Scheduled'),
          initial: 'off',
          states: {
            off: { always: { guard: 'hasScheduler', target: 'waiting' } },
            waiting: { after: { scheduleTick: { target: 'waiting', reenter: true, actions: 'checkSchedule' } } },
          },
        },
        applied: {},
        cancelled: {},
        rejected: {},
      },
    },
    writer: {
      initial: 'idle',
      states: {
        idle: {
          always: [
            { guard: 'applyRefused', actions: 'refuseApply' },
            { guard: 'applyFirst', target: 'coordinating', actions: 'takePlan' },
            { guard: 'commandFirst', target: 'gathering' },
          ],
          on: { replicated: { actions: 'replicate' } },
        },
        // Commands that arrive in the same turn of the event loop are decided together.
        gathering: { after: { gather: 'deciding' } },
        deciding: {
          entry: 'decideQueued',
          always: [{ guard: 'hasInFlight', target: 'committing' }, { target: 'idle' }],
        },
        committing: {
          invoke: {
            id: 'append',
            src: 'append',
            input: ({ context }) => ({ events: context.inFlight!.events }),
            onDone: { target: 'idle', actions: 'commit' },
            onError: { target: 'idle', actions: 'dropInFlight' },
          },
        },
        // Applying: holds its project (and the instance when segments change), in the global
        // order, decides the whole application and appends it at once.
        coordinating: {
          initial: 'acquiring',
          states: {
            acquiring: {
              invoke: {
                id: 'acquire',
                src: 'acquire',
                input: ({ context }) => ({ keys: heldForApply(context.plan!.plan) }),
                onDone: { target: 'deciding', actions: 'holdParticipants' },
                onError: { target: '#changeRequest.writer.idle', actions: 'abandonPlan' },
              },
            },
            deciding: {
              entry: 'decidePlan',
              always: [{ guard: 'hasInFlight', target: 'committing' }, { target: '#changeRequest.writer.idle' }],
            },
            committing: {
              invoke: {
                id: 'append',
                src: 'append',
                input: ({ context }) => ({ events: context.inFlight!.events }),
                onDone: { target: '#changeRequest.writer.idle', actions: 'commit' },
                onError: { target: '#changeRequest.writer.idle', actions: 'dropInFlight' },
              },
            },
          },
        },
      },
    },
  },
})

import { assign, enqueueActions, fromPromise, setup, type AnyActorRef } from 'xstate'
import { decideInstance, evolveInstance, type InstanceCommand, type InstanceWorld } from '../domain/instance.js'
import type { CommandMeta } from '../domain/events.js'
import { lifetimesOf } from '../domain/feature-types.js'
import type { InstanceState } from '../domain/instance-state.js'
import { hasPotentiallyStaleCandidates } from '../domain/staleness.js'
import type { ProjectState } from '../domain/project-state.js'
import { commandJob, decideInOrder, leadingCommands, noLog, type Appended, type InFlight, type Posted, type Report, type Ticket } from './jobs.js'
import { decideInstancePlan, projectsHeldBy, type InstancePlan } from './plans.js'
import type { ProjectCommandInput, ProjectEnv } from './project.machine.js'

// An actor held by a coordinator, with the committed state it was granted in.
export interface Participant {
  key: string
  ref: AnyActorRef | undefined
  state: unknown
}

// The registry's way to hold actors, in the order given (the global order: see plans.ts).
export interface AcquireInput {
  keys: string[]
}
export const noAcquire = fromPromise<Participant[], AcquireInput>(async () => {
  throw new Error('this actor has no registry to hold other actors through')
})

export interface InstanceEnv {
  project: ProjectEnv
  // The projects a plan does not hold, as the world sees them.
  otherProjects(held: ReadonlySet<string>): Iterable<[string, ProjectState]>
  // Unleash's potentially-stale job, as this actor's timer (without it, no timer): every `everyMs` the
  // projects (as the world sees them) with flags past their type's lifetime are told to mark them.
  staleness?: { everyMs: number; clock(): Date; projects(): Iterable<[string, ProjectState]>; tell(projectId: string, command: ProjectCommandInput): void }
}

export type InstanceJob =
  | { kind: 'command'; command: InstanceCommand; ticket: Ticket | undefined }
  | { kind: 'hold'; ticket: Ticket }
  | { kind: 'plan'; plan: InstancePlan; ticket: Ticket | undefined }

export type InstanceEvent =
  | { type: 'command'; command: InstanceCommand; ticket?: Ticket }
  | { type: 'commands'; commands: readonly Posted<InstanceCommand>[] }
  // Commands that span projects, which this actor coordinates (see plans.ts).
  | { type: 'plan'; plan: InstancePlan; ticket?: Ticket }
  | { type: 'hold'; ticket: Ticket }
  | { type: 'lend'; state: InstanceState }
  | { type: 'release'; committed: boolean; state?: InstanceState }
  | { type: 'replicated'; state: InstanceState }

export interface InstanceContext {
  state: InstanceState
  queue: readonly InstanceJob[]
  inFlight: (InFlight<InstanceState> & { projects?: ReadonlyMap<string, ProjectState | undefined> }) | undefined
  // The plan being coordinated and the actors it holds.
  plan: Extract<InstanceJob, { kind: 'plan' }> | undefined
  participants: readonly Participant[]
  env: InstanceEnv | undefined
}

const projectIdOf = (key: string) => key.slice('project:'.length)

// Without an environment (a machine tested alone) no project exists.
export const noProjects: InstanceWorld = { projectExists: () => false, usedInProjects: () => [] }

const decideWith = (env: InstanceEnv | undefined) => (state: InstanceState, command: InstanceCommand) => {
  const result = decideInstance(state, command, env?.project.instanceWorld() ?? noProjects)
  return result.ok ? { ok: true as const, value: { events: result.value, state: result.value.reduce(evolveInstance, state) } } : result
}

export const instanceMachine = setup({
  types: {
    context: {} as InstanceContext,
    input: {} as { state: InstanceState; env?: InstanceEnv },
    events: {} as InstanceEvent,
    emitted: {} as Report,
  },
  actors: { append: noLog, acquire: noAcquire },
  delays: {
    staleCheck: ({ context }) => context.env?.staleness?.everyMs ?? 60_000,
    // The next turn of the event loop (the registry's clock runs a delay of 0 with setImmediate).
    gather: 0,
  },
  guards: {
    holdFirst: ({ context }) => context.queue[0]?.kind === 'hold',
    planFirst: ({ context }) => context.queue[0]?.kind === 'plan',
    commandFirst: ({ context }) => context.queue[0]?.kind === 'command',
    hasInFlight: ({ context }) => context.inFlight !== undefined,
    checksStaleness: ({ context }) => context.env?.staleness !== undefined,
  },
  actions: {
    enqueue: assign({
      queue: ({ context, event }) => {
        if (event.type === 'command') return [...context.queue, { kind: 'command' as const, command: event.command, ticket: event.ticket }]
        if (event.type === 'commands') return [...context.queue, ...event.commands.map(commandJob)]
        if (event.type === 'plan') return [...context.queue, { kind: 'plan' as const, plan: event.plan, ticket: event.ticket }]
        if (event.type === 'hold') return [...context.queue, { kind: 'hold' as const, ticket: event.ticket }]
        return context.queue
      },
    }),
    decideQueued: enqueueActions(({ context, enqueue }) => {
      const jobs = leadingCommands(context.queue) as Extract<InstanceJob, { kind: 'command' }>[]
      const batch = decideInOrder(context.state, jobs, decideWith(context.env))
      for (const { ticket, error } of batch.refused) enqueue.emit({ type: 'refused', ticket, error })
      const inFlight = batch.events.length > 0 ? { state: batch.state, events: batch.events, answers: batch.accepted } : undefined
      if (!inFlight) for (const { ticket } of batch.accepted) enqueue.emit({ type: 'answered', ticket })
      enqueue.assign({ queue: context.queue.slice(jobs.length), inFlight })
    }),
    grantHold: enqueueActions(({ context, enqueue }) => {
      const job = context.queue[0] as Extract<InstanceJob, { kind: 'hold' }>
      enqueue.assign({ queue: context.queue.slice(1) })
      enqueue.emit({ type: 'granted', ticket: job.ticket })
    }),
    takePlan: assign(({ context }) => ({ plan: context.queue[0] as Extract<InstanceJob, { kind: 'plan' }>, queue: context.queue.slice(1) })),
    holdParticipants: assign({ participants: ({ event }) => (event as unknown as { output: Participant[] }).output }),
    // Decided against the held states; the decision for each held project is lent to it (in flight).
    decidePlan: enqueueActions(({ context, enqueue }) => {
      const { plan, ticket } = context.plan!
      const held = new Map(context.participants.map((p) => [projectIdOf(p.key), p.state as ProjectState | undefined]))
      const keys = new Set(context.participants.map((p) => p.key))
      const result = decideInstancePlan(context.env!.project, context.state, held, plan, () => context.env!.otherProjects(keys))
      if (!result.ok || result.value.events.length === 0) {
        for (const p of context.participants) if (p.ref) enqueue.sendTo(p.ref, { type: 'release', committed: false })
        enqueue.emit(result.ok ? { type: 'answered', ticket } : { type: 'refused', ticket, error: result.error })
        enqueue.assign({ plan: undefined, participants: [] })
        return
      }
      const { events, projects, instance } = result.value
      for (const p of context.participants) if (p.ref && projects.has(projectIdOf(p.key))) enqueue.sendTo(p.ref, { type: 'lend', state: projects.get(projectIdOf(p.key)) })
      enqueue.assign({ inFlight: { state: instance, events, answers: [{ ticket, from: 0, count: events.length }], projects } })
    }),
    commit: enqueueActions(({ context, event, enqueue }) => {
      const { records, commitSeconds } = (event as unknown as { output: Appended }).output
      const inFlight = context.inFlight!
      // Every held actor takes its new state before the commit is reported, so that whatever the
      // report reaches reads all of them committed.
      for (const p of context.participants) {
        if (!p.ref) continue
        const id = projectIdOf(p.key)
        enqueue.sendTo(p.ref, inFlight.projects?.has(id) ? { type: 'release', committed: true, state: inFlight.projects.get(id) } : { type: 'release', committed: false })
      }
      enqueue.assign({ state: inFlight.state, inFlight: undefined, plan: undefined, participants: [] })
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
    lend: assign({ inFlight: ({ event }) => (event.type === 'lend' ? { state: event.state, events: [], answers: [] } : undefined) }),
    release: assign(({ context, event }) => (event.type === 'release' ? { state: event.committed && event.state ? event.state : context.state, inFlight: undefined } : {})),
    replicate: assign({ state: ({ context, event }) => (event.type === 'replicated' ? event.state : context.state) }),
    // The flag types (and so their lifetimes) are the instance's: past its type's lifetime a flag gets
    // feature-potentially-stale-on, from the system user, by a command to its project.
    checkStaleness: ({ context }) => {
      const staleness = context.env?.staleness
      if (!staleness) return
      const now = staleness.clock()
      const lifetimes = lifetimesOf((context.inFlight?.state ?? context.state).featureTypes)
      const meta: CommandMeta = { now: now.toISOString(), actor: { name: 'unleash_system_user', userId: -1337 } }
      for (const [projectId, project] of staleness.projects()) {
        if (hasPotentiallyStaleCandidates(project, lifetimes, now.getTime())) staleness.tell(projectId, { type: 'feature.markPotentiallyStale', lifetimes, meta })
      }
    },
  },
}).createMachine({
  id: 'instance',
  context: ({ input }) => ({ state: input.state, queue: [], inFlight: undefined, plan: undefined, participants: [], env: input.env }),
  type: 'parallel',
  on: {
    command: { actions: 'enqueue' },
    commands: { actions: 'enqueue' },
    plan: { actions: 'enqueue' },
    hold: { actions: 'enqueue' },
  },
  states: {
    writer: {
      initial: 'idle',
      states: {
        idle: {
          always: [
            { guard: 'holdFirst', target: 'held', actions: 'grantHold' },
            { guard: 'planFirst', target: 'coordinating', actions: 'takePlan' },
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
        held: {
          on: {
            lend: { actions: 'lend' },
            release: { target: 'idle', actions: 'release' },
          },
        },
        // Holding itself (it decides nothing else meanwhile), it holds the projects of the plan in the
        // global order, decides, appends everything in one append and releases them.
        coordinating: {
          initial: 'acquiring',
          states: {
            acquiring: {
              invoke: {
                id: 'acquire',
                src: 'acquire',
                input: ({ context }) => ({ keys: projectsHeldBy(context.plan!.plan) }),
                onDone: { target: 'deciding', actions: 'holdParticipants' },
                onError: { target: '#instance.writer.idle', actions: 'abandonPlan' },
              },
            },
            deciding: {
              entry: 'decidePlan',
              always: [{ guard: 'hasInFlight', target: 'committing' }, { target: '#instance.writer.idle' }],
            },
            committing: {
              invoke: {
                id: 'append',
                src: 'append',
                input: ({ context }) => ({ events: context.inFlight!.events }),
                onDone: { target: '#instance.writer.idle', actions: 'commit' },
                onError: { target: '#instance.writer.idle', actions: 'dropInFlight' },
              },
            },
          },
        },
      },
    },
    staleness: {
      initial: 'off',
      states: {
        off: { always: { guard: 'checksStaleness', target: 'waiting' } },
        // Unleash's potentially-stale job, as the instance's delayed transition.
        waiting: { after: { staleCheck: { target: 'waiting', reenter: true, actions: 'checkStaleness' } } },
      },
    },
  },
})

import { assign, enqueueActions, setup } from 'xstate'
import { fail, notFound, ok, type Result } from '../domain/errors.js'
import { withFeatureTags } from '../domain/event-tags.js'
import type { EventDraft } from '../domain/events.js'
import type { TagWorld } from '../domain/feature-tags.js'
import type { InstanceWorld } from '../domain/instance.js'
import { decideCreateProject } from '../domain/projects.js'
import { decideAndEvolveProject, evolveProject, type ProjectCommand } from '../domain/project.js'
import type { ProjectState } from '../domain/project-state.js'
import type { DistributiveOmit } from '../domain/type-utils.js'
import type { ProjectWorld } from '../domain/world.js'
import { commandJob, decideInOrder, firstGathering, gathered, gatheringAfter, leadingCommands, noLog, type Appended, type Gathering, type InFlight, type Posted, type Report, type Ticket } from './jobs.js'

// A project command as callers send it: the actor gives it the world when it decides it.
// The world and the tag world are the actor's to read when it decides (ProjectEnv), not the sender's.
export type ProjectCommandInput = DistributiveOmit<ProjectCommand, 'world' | 'tags'>

// What a project's decisions read of the other actors, asked at the moment of each decision with the
// project's own state as decided so far (see Registry: committed state plus the decision in flight).
export interface ProjectEnv {
  world(projectId: string, own: ProjectState | undefined): ProjectWorld
  tags(): TagWorld
  // What the instance's decisions read of the projects (a plan decides instance commands too).
  instanceWorld(): InstanceWorld
}

export type ProjectJob = { kind: 'command'; command: ProjectCommandInput; ticket: Ticket | undefined } | { kind: 'hold'; ticket: Ticket }

export type ProjectEvent =
  | { type: 'command'; command: ProjectCommandInput; ticket?: Ticket }
  // The commands that reached the registry in one turn of the event loop, in order (see Registry.post).
  | { type: 'commands'; commands: readonly Posted<ProjectCommandInput>[] }
  // A coordinator (the instance, a change request) asks for this project: granted when the project is
  // idle, it then decides nothing of its own until released.
  | { type: 'hold'; ticket: Ticket }
  // The coordinator's decision for this project, in flight (so that the world sees it).
  | { type: 'lend'; state: ProjectState | undefined }
  // The coordinator's append committed (state given) or did not (nothing changes).
  | { type: 'release'; committed: boolean; state?: ProjectState | undefined }
  // A read replica: the writer committed this.
  | { type: 'replicated'; state: ProjectState | undefined }

export interface ProjectContext {
  id: string
  // The committed state: what reads, snapshots and the next decision start from.
  state: ProjectState | undefined
  queue: readonly ProjectJob[]
  inFlight: InFlight<ProjectState | undefined> | undefined
  // How many commands to wait for before deciding, and for how long (see jobs.ts).
  gathering: Gathering
  env: ProjectEnv | undefined
}

export interface ProjectInput {
  id?: string
  state: ProjectState | undefined
  env?: ProjectEnv
}

// A world for machines run on their own (tests that pass their own world in each command).
const givenWorld = (command: ProjectCommandInput): ProjectWorld => {
  const world = (command as Partial<ProjectCommand>).world
  if (!world) throw new Error('a project actor without an environment needs commands that carry their world')
  return world
}

// One command against the state decided so far: the world is read now, with that state as the
// project's own; a tagging command's tag world too.
export const decideProjectCommand = (context: Pick<ProjectContext, 'id' | 'env'>, own: ProjectState | undefined, command: ProjectCommandInput): Result<{ events: EventDraft[]; state: ProjectState | undefined }> => {
  const env = context.env
  const world = env ? env.world(context.id, own) : givenWorld(command)
  const full = { ...command, world, ...(env && { tags: env.tags() }) } as ProjectCommand
  let result: Result<{ events: EventDraft[]; state: ProjectState | undefined }>
  if (full.type === 'project.create') {
    const created = decideCreateProject(own, full)
    result = created.ok ? ok({ events: created.value, state: created.value.reduce(evolveProject, own) }) : created
  } else result = own ? decideAndEvolveProject(own, full) : fail(notFound('Project not found'))
  if (!result.ok) return result
  const { events, state } = result.value
  return ok({ events: withFeatureTags(events, state), state })
}

export const projectMachine = setup({
  types: {
    context: {} as ProjectContext,
    input: {} as ProjectInput,
    events: {} as ProjectEvent,
    emitted: {} as Report,
  },
  actors: { append: noLog },
  delays: {
    // At most as long as the last commit took (0: the next turn of the event loop, which the
    // registry's clock runs with setImmediate).
    gather: ({ context }) => context.gathering.waitMs,
  },
  guards: {
    holdFirst: ({ context }) => context.queue[0]?.kind === 'hold',
    commandFirst: ({ context }) => context.queue[0]?.kind === 'command',
    hasInFlight: ({ context }) => context.inFlight !== undefined,
    // The commit deletes the project and nothing waits for it: the actor is done.
    deletesLast: ({ context }) => context.state !== undefined && context.inFlight?.state === undefined && context.queue.length === 0,
    gathered: ({ context }) => gathered(context.queue, context.gathering),
  },
  actions: {
    enqueue: assign({
      queue: ({ context, event }) => {
        if (event.type === 'command') return [...context.queue, { kind: 'command' as const, command: event.command, ticket: event.ticket }]
        if (event.type === 'commands') return [...context.queue, ...event.commands.map(commandJob)]
        if (event.type === 'hold') return [...context.queue, { kind: 'hold' as const, ticket: event.ticket }]
        return context.queue
      },
    }),
    // Every command at the head of the queue, decided in order; the accepted ones go in one append.
    decideQueued: enqueueActions(({ context, enqueue }) => {
      const jobs = leadingCommands(context.queue) as Extract<ProjectJob, { kind: 'command' }>[]
      const batch = decideInOrder(context.state, jobs, (state, command) => decideProjectCommand(context, state, command))
      for (const { ticket, error } of batch.refused) enqueue.emit({ type: 'refused', ticket, error })
      const inFlight = batch.events.length > 0 ? { state: batch.state, events: batch.events, answers: batch.accepted } : undefined
      // Nothing to append: whatever was accepted changed nothing and is answered now.
      if (!inFlight) for (const { ticket } of batch.accepted) enqueue.emit({ type: 'answered', ticket })
      enqueue.assign({ queue: context.queue.slice(jobs.length), inFlight })
    }),
    grantHold: enqueueActions(({ context, enqueue }) => {
      const job = context.queue[0] as Extract<ProjectJob, { kind: 'hold' }>
      enqueue.assign({ queue: context.queue.slice(1) })
      enqueue.emit({ type: 'granted', ticket: job.ticket })
    }),
    commit: enqueueActions(({ context, event, enqueue }) => {
      const { records, commitSeconds } = (event as unknown as { output: Appended }).output
      const answers = context.inFlight!.answers
      enqueue.assign({ state: context.inFlight!.state, inFlight: undefined, gathering: gatheringAfter(answers.length + leadingCommands(context.queue).length, commitSeconds) })
      enqueue.emit({ type: 'committed', records, commitSeconds, answers })
    }),
    dropInFlight: enqueueActions(({ context, event, enqueue }) => {
      enqueue.emit({ type: 'commitFailed', error: (event as unknown as { error: unknown }).error, tickets: context.inFlight!.answers.map((a) => a.ticket) })
      enqueue.assign({ inFlight: undefined })
    }),
    lend: assign({ inFlight: ({ event }) => (event.type === 'lend' ? { state: event.state, events: [], answers: [] } : undefined) }),
    release: assign(({ context, event }) => {
      if (event.type !== 'release') return {}
      return { state: event.committed ? event.state : context.state, inFlight: undefined }
    }),
    replicate: assign({ state: ({ context, event }) => (event.type === 'replicated' ? event.state : context.state) }),
  },
}).createMachine({
  id: 'project',
  context: ({ input }) => ({ id: input.id ?? input.state?.settings.id ?? '', state: input.state, queue: [], inFlight: undefined, gathering: firstGathering, env: input.env }),
  initial: 'live',
  states: {
    // A project is its writer: it decides, appends, commits; it exists while it has a state.
    live: {
      on: {
        command: { actions: 'enqueue' },
        commands: { actions: 'enqueue' },
        hold: { actions: 'enqueue' },
      },
      initial: 'idle',
      states: {
        idle: {
          always: [
            { guard: 'holdFirst', target: 'held', actions: 'grantHold' },
            { guard: 'commandFirst', target: 'gathering' },
          ],
          on: { replicated: { actions: 'replicate' } },
        },
        // The commands expected are waited for (group commit), then decided together.
        gathering: {
          always: { guard: 'gathered', target: 'deciding' },
          after: { gather: 'deciding' },
        },
        deciding: {
          entry: 'decideQueued',
          always: [{ guard: 'hasInFlight', target: 'committing' }, { target: 'idle' }],
        },
        // The append is an invoked actor: lmdb-js still batches the appends of every actor that
        // commits at once into one transaction and one sync.
        committing: {
          invoke: {
            id: 'append',
            src: 'append',
            input: ({ context }) => ({ events: context.inFlight!.events }),
            // Committed: the callers are answered, and the commands that waited are gathered with
            // the answered callers' next ones (see gatheringAfter).
            onDone: [
              { guard: 'deletesLast', target: '#project.deleted', actions: 'commit' },
              { target: 'idle', actions: 'commit' },
            ],
            onError: { target: 'idle', actions: 'dropInFlight' },
          },
        },
        held: {
          on: {
            lend: { actions: 'lend' },
            release: { target: 'idle', actions: 'release' },
          },
        },
      },
    },
    // Deleted, with nothing waiting for it: the registry forgets the actor.
    deleted: { type: 'final' },
  },
})

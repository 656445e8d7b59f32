import { createActor, fromPromise, type Actor, type AnyActorRef } from 'xstate'
import type { ChangeRequest } from '../domain/change-request-state.js'
import { notFound } from '../domain/errors.js'
import type { EventRecord } from '../domain/events.js'
import type { TagWorld } from '../domain/feature-tags.js'
import { isChangeRequestRecord, type ChangeRequestCommand } from '../domain/change-requests.js'
import { ownedByInstance, type InstanceCommand, type InstanceWorld } from '../domain/instance.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { ProjectState } from '../domain/project-state.js'
import { projectsUsingSegment } from '../domain/usage.js'
import { projectWorldOf, type ProjectWorld } from '../domain/world.js'
import type { EventLog, StoredRecord } from '../store/log.js'
import { changeRequestMachine, type ChangeRequestEnv } from './change-request.machine.js'
import { dueJob } from './change-request-schedule.js'
import type { CommitPipeline, CommitStep } from './commit-pipeline.js'
import { instanceMachine, type AcquireInput, type InstanceEnv, type Participant } from './instance.machine.js'
import { commitFailure, type AppendInput, type Appended, type Posted, type Report, type Ticket } from './jobs.js'
import type { ApplyPlan, InstancePlan } from './plans.js'
import { instanceKey, projectKey } from './plans.js'
import { projectMachine, type ProjectCommandInput, type ProjectEnv } from './project.machine.js'
import { applyRecord, type World } from './recovery.js'

export type ProjectActor = Actor<typeof projectMachine>
export type InstanceActor = Actor<typeof instanceMachine>
export type ChangeRequestActor = Actor<typeof changeRequestMachine>

export interface RegistryOptions {
  // Where appends go; a read replica has none (it decides nothing).
  log?: EventLog
  indexKeysOf?: (record: EventRecord) => string[]
  // Stamps the commands actors give themselves and reads the time their timers compare with.
  clock?: () => Date
  // Timers (none on a replica): the change-request scheduler's granularity (a due schedule is seen
  // at most this late, and a clock moved by a test is noticed) and the potentially-stale check.
  schedulerIntervalMs?: number
  potentiallyStaleCheckMs?: number
  // A commit that failed (a full disk): its callers get a 503; this hears of each refused command.
  onCommitFailed?: (error: unknown) => void
  // A bug inside an actor or a commit step: logged, the server goes on.
  onError?: (message: string, error: unknown) => void
}

export interface Recovered {
  instance: InstanceState
  projects: ReadonlyMap<string, ProjectState>
  changeRequests: ReadonlyMap<number, ChangeRequest>
  lastId: number
}

// The actors' clock: Node timers. A delay of 0 is the next turn of the event loop (setImmediate). A
// timer of `backgroundMs` or more is background work (a schedule's tick, the staleness check) and is
// unref'd: it does not keep a process alive whose server was not stopped. Shorter ones (a group
// commit's wait, at most 20 ms) have callers waiting on them and keep it alive.
const backgroundMs = 100
type ClockHandle = { immediate: NodeJS.Immediate } | { timer: NodeJS.Timeout }
const actorClock = {
  setTimeout: (fn: (...args: unknown[]) => void, ms: number): ClockHandle => {
    if (ms <= 0) return { immediate: setImmediate(fn) }
    const timer = setTimeout(fn, ms)
    if (ms >= backgroundMs) timer.unref()
    return { timer }
  },
  clearTimeout: (handle: unknown) => {
    const h = handle as ClockHandle
    if ('immediate' in h) clearImmediate(h.immediate)
    else clearTimeout(h.timer)
  },
}

// The committed state of each actor of one kind, as a read-only map (a view: the state lives in the actors).
class CommittedView<K, S> implements ReadonlyMap<K, S> {
  constructor(
    private readonly actors: ReadonlyMap<K, AnyActorRef>,
    private readonly stateOf: (actor: AnyActorRef) => S | undefined,
  ) {}
  get(key: K): S | undefined {
    const actor = this.actors.get(key)
    return actor && this.stateOf(actor)
  }
  has(key: K): boolean {
    return this.get(key) !== undefined
  }
  get size(): number {
    let n = 0
    for (const _ of this.entries()) n++
    return n
  }
  *entries(): MapIterator<[K, S]> {
    for (const [key, actor] of this.actors) {
      const state = this.stateOf(actor)
      if (state !== undefined) yield [key, state]
    }
  }
  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key
  }
  *values(): MapIterator<S> {
    for (const [, state] of this.entries()) yield state
  }
  forEach(callback: (value: S, key: K, map: ReadonlyMap<K, S>) => void): void {
    for (const [key, state] of this.entries()) callback(state, key, this)
  }
  [Symbol.iterator](): MapIterator<[K, S]> {
    return this.entries()
  }
}

type Settle = { resolve: (records: EventRecord[]) => void; reject: (error: unknown) => void }

const isIdle = (actor: AnyActorRef): boolean => {
  const snapshot = actor.getSnapshot() as { status: string; context: { queue: readonly unknown[]; inFlight?: unknown; plan?: unknown } }
  return snapshot.status !== 'active' || (snapshot.context.queue.length === 0 && snapshot.context.inFlight === undefined && snapshot.context.plan === undefined)
}

// The actor system: one actor per project, one per change request, one for the instance. It creates
// them from recovered state, carries commands to them and their answers back, provides the one
// append they all invoke, lets coordinators hold other actors, and is where decisions read the
// world. Reads see committed state only; the world a decision reads is each actor's committed
// state plus its decision in flight (see docs/design.md).
export class Registry {
  instance: InstanceActor
  private readonly projects = new Map<string, ProjectActor>()
  private readonly changeRequestActors = new Map<number, ChangeRequestActor>()
  readonly committedProjects: ReadonlyMap<string, ProjectState> = new CommittedView(this.projects, (a) => (a as ProjectActor).getSnapshot().context.state)
  readonly committedChangeRequests: ReadonlyMap<number, ChangeRequest> = new CommittedView(this.changeRequestActors, (a) => (a as ChangeRequestActor).getSnapshot().context.request)

  private readonly tickets = new Map<Ticket, Settle>()
  private readonly grants = new Map<Ticket, (participant: Participant) => void>()
  private nextTicket = 1
  private readonly mailbox = new Map<AnyActorRef, Posted<unknown>[]>()
  private deliveryDue = false
  private pipeline: CommitPipeline | undefined
  private readonly earlyListeners: CommitStep[] = []
  private started = false
  private stopping = false
  private startedAt = 0
  private readonly recoveredLastId: number
  // Appends report their commits in the order they were made (see append).
  private tail: Promise<unknown> = Promise.resolve()

  private readonly projectLogic: typeof projectMachine
  private readonly instanceLogic: typeof instanceMachine
  private readonly changeRequestLogic: typeof changeRequestMachine
  private readonly projectEnv: ProjectEnv
  private readonly instanceEnv: InstanceEnv
  private readonly changeRequestEnv: ChangeRequestEnv

  constructor(
    recovered: Recovered,
    private readonly options: RegistryOptions = {},
  ) {
    const clock = options.clock ?? (() => new Date())
    const timers = options.log !== undefined
    const append = fromPromise<Appended, AppendInput>(({ input }) => this.append(input))
    const acquire = fromPromise<Participant[], AcquireInput>(({ input }) => this.acquire(input.keys))
    this.projectLogic = projectMachine.provide({ actors: { append } })
    this.instanceLogic = instanceMachine.provide({ actors: { append, acquire } })
    this.changeRequestLogic = changeRequestMachine.provide({ actors: { append, acquire } })
    const decisionEnv: ProjectEnv = { world: (id, own) => this.projectWorld(id, own), tags: () => this.tagWorld(), instanceWorld: () => this.instanceWorld() }
    this.projectEnv = decisionEnv
    this.instanceEnv = {
      project: decisionEnv,
      otherProjects: (held) => this.decidedProjectsExcept(held),
      ...(timers &&
        options.potentiallyStaleCheckMs && {
          staleness: {
            everyMs: options.potentiallyStaleCheckMs,
            clock,
            projects: () => this.decidedProjects(),
            // A command the project gives itself, as it were: nobody waits for its answer.
            tell: (projectId, command) => {
              const actor = this.projects.get(projectId)
              if (!actor) return
              this.deliver(actor)
              actor.send({ type: 'command', command })
            },
          },
        }),
    }
    this.changeRequestEnv = {
      project: decisionEnv,
      instance: () => this.decidedInstance(),
      ...(timers &&
        options.schedulerIntervalMs && {
          schedule: {
            everyMs: options.schedulerIntervalMs,
            clock,
            due: (request, now) =>
              dueJob(
                { startedAt: this.startedAt, project: (id) => this.committedProjects.get(id), instance: () => this.committedInstance },
                request,
                now,
              ),
          },
        }),
    }
    this.recoveredLastId = recovered.lastId
    this.instance = this.createInstance(recovered.instance)
    for (const [id, state] of recovered.projects) this.spawnProject(id, state)
    for (const [id, request] of recovered.changeRequests) this.spawnChangeRequest(id, request)
  }

  // Actors take commands (and their timers run) from here on; commits go through the pipeline.
  start(pipeline: CommitPipeline): void {
    this.pipeline = pipeline
    for (const listener of this.earlyListeners) pipeline.listen(listener)
    this.startedAt = (this.options.clock ?? (() => new Date()))().getTime()
    this.started = true
    this.instance.start()
    for (const actor of this.projects.values()) actor.start()
    for (const actor of this.changeRequestActors.values()) actor.start()
  }

  // Waits for every command and commit under way (timers may add some), then stops every actor.
  async stop(): Promise<void> {
    while (!this.allIdle()) await new Promise((resolve) => setTimeout(resolve, 2))
    this.started = false
    this.stopAll()
  }

  private stopAll(): void {
    this.stopping = true
    this.instance.stop()
    for (const actor of this.projects.values()) actor.stop()
    for (const actor of this.changeRequestActors.values()) actor.stop()
    this.stopping = false
  }

  listen(listener: CommitStep): void {
    if (this.pipeline) this.pipeline.listen(listener)
    else this.earlyListeners.push(listener)
  }

  get lastCommittedId(): number {
    return this.pipeline?.lastId ?? this.recoveredLastId
  }

  get committedInstance(): InstanceState {
    return this.instance.getSnapshot().context.state
  }

  // --- commands: sent to the owning actor, answered when their records are committed ---

  sendToInstance(command: InstanceCommand): Promise<EventRecord[]> {
    return this.post(this.instance, command)
  }

  sendToProject(projectId: string, command: ProjectCommandInput): Promise<EventRecord[]> {
    let actor = this.projects.get(projectId)
    if (!actor && command.type === 'project.create') actor = this.spawnProject(projectId, undefined)
    if (!actor) return Promise.reject(notFound(`Project ${projectId} does not exist`))
    return this.post(actor, command)
  }

  sendToChangeRequest(id: number, command: ChangeRequestCommand): Promise<EventRecord[]> {
    let actor = this.changeRequestActors.get(id)
    if (!actor && command.type === 'changeRequest.create') actor = this.spawnChangeRequest(id, undefined)
    if (!actor) return Promise.reject(notFound(`Could not find change request ${id}`))
    return this.post(actor, command)
  }

  // Commands to several projects and the instance (together, moving a flag): the instance coordinates.
  coordinate(plan: InstancePlan): Promise<EventRecord[]> {
    return this.ask(this.instance, (ticket) => ({ type: 'plan', plan, ticket }))
  }

  // Applying a change request: the request coordinates.
  apply(id: number, plan: ApplyPlan): Promise<EventRecord[]> {
    const actor = this.changeRequestActors.get(id)
    if (!actor) return Promise.reject(notFound(`Could not find change request ${id}`))
    return this.ask(actor, (ticket) => ({ type: 'apply', plan, ticket }))
  }

  private ask(actor: AnyActorRef, event: (ticket: Ticket) => { type: string }): Promise<EventRecord[]> {
    const ticket = this.nextTicket++
    return new Promise<EventRecord[]>((resolve, reject) => {
      this.tickets.set(ticket, { resolve, reject })
      this.deliver(actor)
      actor.send(event(ticket))
    })
  }

  // Commands are posted, not sent one by one: those that reach an actor in one turn of the event loop
  // (the requests of many connections that uWS reads in one poll) go to it as one event at the end of
  // the turn, so that the actor's machine takes one step for them all, not one each.
  private post(actor: AnyActorRef, command: unknown): Promise<EventRecord[]> {
    const ticket = this.nextTicket++
    return new Promise<EventRecord[]>((resolve, reject) => {
      this.tickets.set(ticket, { resolve, reject })
      const posted = this.mailbox.get(actor)
      if (posted) posted.push({ command, ticket })
      else this.mailbox.set(actor, [{ command, ticket }])
      if (!this.deliveryDue) {
        this.deliveryDue = true
        setImmediate(this.deliverAll)
      }
    })
  }

  private readonly deliverAll = (): void => {
    this.deliveryDue = false
    for (const actor of this.mailbox.keys()) this.deliver(actor)
  }

  // What was posted to the actor goes to it now: before any other event sent to it, so that it sees
  // commands and other events in the order they came.
  private deliver(actor: AnyActorRef): void {
    const commands = this.mailbox.get(actor)
    if (!commands) return
    this.mailbox.delete(actor)
    actor.send(commands.length === 1 ? { type: 'command', ...commands[0] } : { type: 'commands', commands })
  }

  private settle(ticket: Ticket | undefined): Settle | undefined {
    if (ticket === undefined) return undefined
    const settle = this.tickets.get(ticket)
    this.tickets.delete(ticket)
    return settle
  }

  // What actors report: refusals and answers go to their callers; a commit goes through the pipeline
  // first (so a caller's reply follows the read models), then answers each of its commands.
  private hear(actor: AnyActorRef, report: Report): void {
    switch (report.type) {
      case 'refused':
        this.settle(report.ticket)?.reject(report.error)
        return
      case 'answered':
        this.settle(report.ticket)?.resolve([])
        return
      case 'granted': {
        const grant = this.grants.get(report.ticket)
        this.grants.delete(report.ticket)
        const context = actor.getSnapshot().context as { state: unknown }
        grant?.({ key: '', ref: actor, state: context.state })
        return
      }
      case 'committed':
        try {
          this.pipeline?.run(report.records, report.commitSeconds)
        } catch (error) {
          this.options.onError?.('a step of the commit pipeline failed', error)
        }
        for (const { ticket, from, count } of report.answers) this.settle(ticket)?.resolve(report.records.slice(from, from + count))
        return
      case 'commitFailed':
        for (const ticket of report.tickets) {
          this.options.onCommitFailed?.(report.error)
          this.settle(ticket)?.reject(commitFailure())
        }
        return
    }
  }

  // The one append: lmdb-js batches concurrent appends (from any actors) into one transaction and
  // one sync. Each append reports only after the one before it settled, so that commits reach the
  // actors and the pipeline in log order even when one lmdb flush commits several at once.
  private append(input: AppendInput): Promise<Appended> {
    const log = this.options.log
    if (!log) return Promise.reject(new Error('a read replica appends nothing'))
    const started = performance.now()
    let appended: ReturnType<typeof log.append<EventRecord & StoredRecord>>
    try {
      appended = log.append<EventRecord & StoredRecord>(input.events, this.options.indexKeysOf)
    } catch (error) {
      return Promise.reject(error)
    }
    const inOrder = this.tail.then(() => appended.committed)
    this.tail = inOrder.catch(() => undefined)
    return inOrder.then(() => ({ records: appended.records, commitSeconds: (performance.now() - started) / 1000 }))
  }

  // Holds the actors one after another in the order given (the global order); an actor that does not
  // exist is held as nothing.
  private async acquire(keys: readonly string[]): Promise<Participant[]> {
    const participants: Participant[] = []
    for (const key of keys) participants.push(await this.hold(key))
    return participants
  }

  private hold(key: string): Promise<Participant> {
    const actor: AnyActorRef | undefined = key === instanceKey ? this.instance : this.projects.get(key.slice('project:'.length))
    if (!actor || actor.getSnapshot().status !== 'active') return Promise.resolve({ key, ref: undefined, state: undefined })
    const ticket = this.nextTicket++
    return new Promise((resolve) => {
      this.grants.set(ticket, (granted) => resolve({ ...granted, key }))
      this.deliver(actor)
      actor.send({ type: 'hold', ticket })
    })
  }

  private allIdle(): boolean {
    return this.mailbox.size === 0 && isIdle(this.instance) && [...this.projects.values()].every(isIdle) && [...this.changeRequestActors.values()].every(isIdle)
  }

  // --- actors ---

  // `forget` takes the actor out of the registry once it is done, or once it holds nothing and waits
  // for nothing (an actor made for a create that was refused).
  private watch<A extends AnyActorRef>(actor: A, forget: () => void, holdsNothing: () => boolean = () => false): A {
    let checking = false
    actor.on('*', (report: Report) => {
      this.hear(actor, report)
      if (checking) return
      checking = true
      queueMicrotask(() => {
        checking = false
        if (actor.getSnapshot().status === 'active' && isIdle(actor) && holdsNothing()) {
          forget()
          actor.stop()
        }
      })
    })
    // Stopping every actor (at close, or a replica's restore) keeps them: their state is what is saved.
    const forgetUnlessStopping = () => {
      if (!this.stopping) forget()
    }
    actor.subscribe({
      complete: forgetUnlessStopping,
      error: (error: unknown) => {
        forgetUnlessStopping()
        this.options.onError?.('an actor failed and was stopped', error)
      },
    })
    return actor
  }

  private createInstance(state: InstanceState): InstanceActor {
    return this.watch(createActor(this.instanceLogic, { input: { state, env: this.instanceEnv }, clock: actorClock }), () => undefined)
  }

  private spawnProject(id: string, state: ProjectState | undefined): ProjectActor {
    const actor: ProjectActor = this.watch(
      createActor(this.projectLogic, { input: { id, state, env: this.projectEnv }, clock: actorClock }),
      () => {
        if (this.projects.get(id) === actor) this.projects.delete(id)
      },
      () => actor.getSnapshot().context.state === undefined,
    )
    this.projects.set(id, actor)
    if (this.started) actor.start()
    return actor
  }

  private spawnChangeRequest(id: number, request: ChangeRequest | undefined): ChangeRequestActor {
    const actor: ChangeRequestActor = this.watch(
      createActor(this.changeRequestLogic, { input: { id, request, env: this.changeRequestEnv }, clock: actorClock }),
      () => {
        if (this.changeRequestActors.get(id) === actor) this.changeRequestActors.delete(id)
      },
      () => actor.getSnapshot().context.request === undefined,
    )
    this.changeRequestActors.set(id, actor)
    if (this.started) actor.start()
    return actor
  }

  project(id: string): ProjectActor | undefined {
    const actor = this.projects.get(id)
    return actor && this.visibleProject(actor) !== undefined ? actor : undefined
  }

  changeRequest(id: number): ChangeRequestActor | undefined {
    return this.changeRequestActors.get(id)
  }

  // Ids are handed out over every request actor (one is created with its create command), so two new
  // requests created in one tick never share one.
  nextChangeRequestId(): number {
    return Math.max(0, ...this.changeRequestActors.keys()) + 1
  }

  // --- the world: what decisions read of other actors ---
  // Each actor as the world sees it: its committed state, or its decision in flight (a coordinator's
  // decision for an actor it holds is lent to that actor). Decisions are synchronous and an actor's
  // append is made in the same step as its decision, so a decision sees every decision that will be
  // in the log before its own, and a commit that fails fails every append made after it (EventLog).

  private visibleProject(actor: ProjectActor): ProjectState | undefined {
    const snapshot = actor.getSnapshot()
    if (snapshot.status !== 'active') return undefined
    return snapshot.context.inFlight ? snapshot.context.inFlight.state : snapshot.context.state
  }

  private decidedInstance(): InstanceState {
    const context = this.instance.getSnapshot().context
    return context.inFlight?.state ?? context.state
  }

  decidedProjects(): Iterable<[string, ProjectState]> {
    return this.decidedProjectsExcept(new Set())
  }

  private decidedProjectsExcept(keys: ReadonlySet<string>): [string, ProjectState][] {
    const result: [string, ProjectState][] = []
    for (const [id, actor] of this.projects) {
      if (keys.has(projectKey(id))) continue
      const state = this.visibleProject(actor)
      if (state) result.push([id, state])
    }
    return result
  }

  private projectExists(id: string): boolean {
    return this.project(id) !== undefined
  }

  // The projects as the world sees them, the deciding one at the state its decision reached so far.
  private projectsWith(self: string | undefined, own: ProjectState | undefined): [string, ProjectState][] {
    const result: [string, ProjectState][] = []
    for (const [id, actor] of this.projects) {
      const state = id === self ? own : this.visibleProject(actor)
      if (state) result.push([id, state])
    }
    if (self !== undefined && own && !this.projects.has(self)) result.push([self, own])
    return result
  }

  projectWorld(self?: string, own?: ProjectState): ProjectWorld {
    return projectWorldOf(this.decidedInstance(), this.projectsWith(self, own))
  }

  // The world as committed, for a route's check before it sends a command (the ReadPort's).
  committedWorld(): ProjectWorld {
    return projectWorldOf(this.committedInstance, [...this.committedProjects])
  }

  private tagWorld(): TagWorld {
    const instance = this.decidedInstance()
    return { tagTypeExists: (type) => instance.tagTypes.has(type) }
  }

  private instanceWorld(): InstanceWorld {
    return { projectExists: (id) => this.projectExists(id), usedInProjects: (id) => projectsUsingSegment(this.decidedProjects(), id) }
  }

  // --- a read replica: the writer's records and snapshots ---

  // Records committed elsewhere change the actors' committed state exactly as recovery replays them.
  applyCommitted(records: EventRecord[]): void {
    const touchedProjects = new Set<string>()
    const touchedRequests = new Set<number>()
    const world: World = { instance: this.committedInstance, projects: new Map(), changeRequests: new Map() }
    for (const record of records) {
      if (isChangeRequestRecord(record)) {
        const id = record.data.changeRequestId
        if (!touchedRequests.has(id)) {
          touchedRequests.add(id)
          const request = this.committedChangeRequests.get(id)
          if (request) world.changeRequests.set(id, request)
        }
      } else if (!ownedByInstance(record) && record.project && !touchedProjects.has(record.project)) {
        touchedProjects.add(record.project)
        const state = this.committedProjects.get(record.project)
        if (state) world.projects.set(record.project, state)
      }
      applyRecord(world, record)
    }
    if (world.instance !== this.committedInstance) this.instance.send({ type: 'replicated', state: world.instance })
    for (const id of touchedProjects) {
      const state = world.projects.get(id)
      const actor = this.projects.get(id)
      if (state && actor) actor.send({ type: 'replicated', state })
      else if (state) this.spawnProject(id, state)
      else if (actor) {
        this.projects.delete(id)
        actor.stop()
      }
    }
    for (const id of touchedRequests) {
      const request = world.changeRequests.get(id)
      const actor = this.changeRequestActors.get(id)
      if (request && actor) actor.send({ type: 'replicated', request })
      else if (request) this.spawnChangeRequest(id, request)
    }
    this.pipeline?.run(records)
  }

  // A replica starting over from the writer's snapshot: every actor is created again from it.
  restore(world: Recovered): void {
    this.stopAll()
    this.projects.clear()
    this.changeRequestActors.clear()
    this.instance = this.createInstance(world.instance)
    if (this.started) this.instance.start()
    for (const [id, state] of world.projects) this.spawnProject(id, state)
    for (const [id, request] of world.changeRequests) this.spawnChangeRequest(id, request)
    this.pipeline?.restart(world.lastId)
  }
}

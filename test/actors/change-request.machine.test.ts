import t from 'tap'
import { noProjects } from '../../src/actors/instance.machine.js'
import { initialTransition, transition } from 'xstate'
import { dueJob } from '../../src/actors/change-request-schedule.js'
import { changeRequestMachine } from '../../src/actors/change-request.machine.js'
import type { Author, ChangeRequest } from '../../src/domain/change-request-state.js'
import type { ChangeRequestCommand, ChangeRequestCommandType } from '../../src/domain/change-requests.js'
import type { ChangeRequestStateName } from '../../src/schemas/change-requests.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { Scenario, environment } from '../domain/fixtures/scenario.js'
import { Driver, appendDone, decideNow, nodeOf as regionNode, reportsOf } from '../helpers/machines.js'

// The machine's table: for every state of a request, which steps it takes and which it refuses.
// Every refused step is answered with a 'rejected' decision whose message names the state and the step,
// and leaves the request exactly as it was.

const now = '2024-05-01T12:00:00.000Z'
const author: Author = { id: 10, username: 'author@example.com' }
const approver: Author = { id: 20, username: 'approver@example.com' }
const meta = { now, actor: { name: author.username, userId: author.id } }

type StateOrAbsent = ChangeRequestStateName | 'absent'

const allStates: StateOrAbsent[] = ['absent', 'Draft', 'In review', 'Approved', 'Scheduled', 'Applied', 'Cancelled', 'Rejected']
const allSteps: ChangeRequestCommandType[] = [
  'changeRequest.create',
  'change.add',
  'change.edit',
  'change.discard',
  'title.set',
  'comment.add',
  'discard',
  'state.review',
  'state.approve',
  'state.reject',
  'state.cancel',
  'state.schedule',
  'state.apply',
  'schedule.fail',
  'schedule.suspend',
]

// The expected table, written from the life of a change request (SEMANTICS 12), not copied from the machine.
const accepted: Record<StateOrAbsent, ChangeRequestCommandType[]> = {
  absent: ['changeRequest.create'],
  Draft: ['change.add', 'change.edit', 'change.discard', 'title.set', 'comment.add', 'discard', 'state.review', 'state.cancel'],
  'In review': ['change.edit', 'change.discard', 'title.set', 'comment.add', 'state.approve', 'state.reject', 'state.cancel'],
  Approved: ['comment.add', 'state.reject', 'state.cancel', 'state.schedule', 'state.apply'],
  Scheduled: ['comment.add', 'state.reject', 'state.cancel', 'state.schedule', 'state.apply', 'schedule.fail', 'schedule.suspend'],
  Applied: ['comment.add'],
  Cancelled: ['comment.add'],
  Rejected: ['comment.add'],
}

// What each step turns the request into when taken (undefined: the state stays).
const nextState: Partial<Record<StateOrAbsent, Partial<Record<ChangeRequestCommandType, ChangeRequestStateName>>>> = {
  absent: { 'changeRequest.create': 'Draft' },
  Draft: { discard: 'Cancelled', 'state.review': 'In review', 'state.cancel': 'Cancelled' },
  'In review': { 'state.approve': 'Approved', 'state.reject': 'Rejected', 'state.cancel': 'Cancelled' },
  Approved: { 'state.reject': 'Rejected', 'state.cancel': 'Cancelled', 'state.schedule': 'Scheduled', 'state.apply': 'Applied' },
  Scheduled: { 'state.reject': 'Rejected', 'state.cancel': 'Cancelled', 'state.schedule': 'Scheduled', 'state.apply': 'Applied' },
}

const nodeOf: Record<ChangeRequestStateName, string> = {
  Draft: 'draft',
  'In review': 'inReview',
  Approved: 'approved',
  Scheduled: 'scheduled',
  Applied: 'applied',
  Cancelled: 'cancelled',
  Rejected: 'rejected',
}

const verbOf: Record<ChangeRequestCommandType, string> = {
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

const newChange = { feature: 'checkout', action: 'updateEnabled' as const, payload: { enabled: true }, snapshot: null }

const requestIn = (state: ChangeRequestStateName, overrides: Partial<ChangeRequest> = {}): ChangeRequest => ({
  id: 7,
  title: 'Change request #7',
  project: 'web',
  environment: 'production',
  state,
  minApprovals: 1,
  createdAt: '2024-05-01T10:00:00.000Z',
  createdBy: author,
  changes: [{ id: 1, ...newChange, createdAt: '2024-05-01T10:00:00.000Z', createdBy: author }],
  approvals: ['Approved', 'Scheduled', 'Applied'].includes(state) ? [{ createdBy: approver, createdAt: '2024-05-01T11:00:00.000Z' }] : [],
  rejections: state === 'Rejected' ? [{ createdBy: approver, createdAt: '2024-05-01T11:00:00.000Z' }] : [],
  comments: [],
  schedule: state === 'Scheduled' ? { scheduledAt: '2024-05-02T10:00:00.000Z', status: 'pending', scheduledBy: approver } : null,
  stateTimestamps: { Draft: '2024-05-01T10:00:00.000Z', [state]: '2024-05-01T11:00:00.000Z' },
  discarded: false,
  nextChangeId: 2,
  nextCommentId: 1,
  ...overrides,
})

// A command of each type that passes the data rules of its step (the right person, an existing change,
// a future date), so that taking or refusing it is the machine's call alone.
const commandFor = (type: ChangeRequestCommandType): ChangeRequestCommand => {
  const by = (who: Author) => ({ meta: { ...meta, actor: { name: who.username, userId: who.id } }, author: who, isAdmin: false })
  switch (type) {
    case 'changeRequest.create':
      return { ...by(author), type, id: 7, project: 'web', environment: 'production', minApprovals: 1, changes: [newChange] }
    case 'change.add':
      return { ...by(author), type, changes: [{ ...newChange, payload: { enabled: false } }] }
    case 'change.edit':
      return { ...by(author), type, changeId: 1, change: { action: 'updateEnabled', payload: { enabled: false }, snapshot: null } }
    case 'change.discard':
      return { ...by(author), type, changeId: 1 }
    case 'title.set':
      return { ...by(author), type, title: 'Roll out checkout' }
    case 'comment.add':
      return { ...by(approver), type, text: 'Looks good' }
    case 'discard':
      return { ...by(author), type }
    case 'state.review':
      return { ...by(author), type }
    case 'state.approve':
      return { ...by(approver), type }
    case 'state.reject':
      return { ...by(approver), type, comment: 'not now' }
    case 'state.cancel':
      return { ...by(author), type }
    case 'state.schedule':
      return { ...by(approver), type, scheduledAt: '2024-05-03T10:00:00.000Z' }
    case 'state.apply':
      return { ...by(approver), type }
    case 'schedule.fail':
      return { ...by(approver), type, reason: 'the server was down' }
    case 'schedule.suspend':
      return { ...by(approver), type, reason: 'conflict' }
  }
}

// The machine driven by pure transitions: each command is decided and, when it appended, committed;
// `emitted` is what each command was answered (test/helpers/machines.ts).
const start = (request: ChangeRequest | undefined) => {
  const actor = new Driver(changeRequestMachine, { request })
  return { actor, emitted: actor.decisions }
}

// The node of the request's life (the machine also has a writer region).
const lifeOf = (snapshot: { value: unknown }) => regionNode(snapshot, ['life'])

// Sends one command and returns the single decision it produced.
const send = (request: ChangeRequest | undefined, command: ChangeRequestCommand) => {
  const { actor, emitted } = start(request)
  const before = actor.snapshot
  actor.send(command)
  const after = actor.snapshot
  return { before, after, emitted }
}

const stateOf = (state: StateOrAbsent) => (state === 'absent' ? undefined : requestIn(state))

t.test('each state starts in the node that mirrors request.state', async (t) => {
  t.equal(lifeOf(start(undefined).actor.snapshot), 'absent', 'no request: absent')
  for (const state of Object.keys(nodeOf) as ChangeRequestStateName[]) {
    const { actor } = start(requestIn(state))
    t.equal(lifeOf(actor.snapshot), nodeOf[state], `${state} → ${nodeOf[state]}`)
    t.equal(actor.snapshot.context.request?.state, state)
  }
})

t.test('the full table: every state × every step is taken or refused', async (t) => {
  let taken = 0
  let refused = 0
  for (const state of allStates) {
    for (const type of allSteps) {
      const request = stateOf(state)
      const snapshotOfRequest = JSON.stringify(request)
      const { before, after, emitted } = send(request, commandFor(type))
      const label = `${state} × ${type}`
      t.equal(emitted.length, 1, `${label}: exactly one decision`)
      const decision = emitted[0]
      if (accepted[state].includes(type)) {
        taken++
        if (decision?.type !== 'decided') {
          t.fail(`${label}: expected 'decided', got ${decision?.type}: ${decision?.type === 'rejected' ? decision.error.message : ''}`)
          continue
        }
        t.ok(decision.events.length > 0, `${label}: decided with events`)
        const expected = nextState[state]?.[type] ?? (state === 'absent' ? undefined : state)
        t.equal(after.context.request?.state, expected, `${label}: request is ${expected}`)
        t.equal(lifeOf(after), nodeOf[expected!], `${label}: the machine follows to ${nodeOf[expected!]}`)
      } else {
        refused++
        if (decision?.type !== 'rejected') {
          t.fail(`${label}: expected 'rejected', got ${decision?.type}`)
          continue
        }
        t.equal(after.context.request, before.context.request, `${label}: the request is untouched`)
        t.equal(lifeOf(after), lifeOf(before), `${label}: the machine stays in ${lifeOf(before)}`)
        t.equal(JSON.stringify(after.context.request), snapshotOfRequest, `${label}: nothing in the request changed`)
        if (state === 'absent') {
          t.equal(decision.error.kind, 'NotFoundError', `${label}: an unknown request is not found`)
          continue
        }
        t.equal(decision.error.kind, 'BadDataError', `${label}: a 400`)
        t.equal(decision.error.message, `Change request 7 is "${state}", so it cannot be ${verbOf[type]}.`, `${label}: the message names the state and the step`)
        t.same(decision.error.details, [{ message: `refused transition: ${type} in state ${state}` }], `${label}: details name the refused transition`)
      }
    }
  }
  t.equal(taken + refused, allStates.length * allSteps.length, 'every cell of the table was tried')
  t.equal(taken, Object.values(accepted).reduce((n, steps) => n + steps.length, 0))
})

t.test('Applied, Cancelled and Rejected are final: nothing but a comment is taken', async (t) => {
  for (const state of ['Applied', 'Cancelled', 'Rejected'] as const) {
    const { actor, emitted } = start(requestIn(state))
    for (const type of allSteps) actor.send(commandFor(type))
    t.same(
      emitted.map((d) => d.type),
      allSteps.map((type) => (type === 'comment.add' ? 'decided' : 'rejected')),
      `${state}: only comment.add is decided`,
    )
    t.equal(actor.snapshot.context.request?.state, state, `${state} stays ${state}`)
    t.equal(actor.snapshot.context.request?.comments.length, 1, 'the comment was kept')
  }
})

t.test('a step the state takes can still be refused by its data rules, and that changes nothing', async (t) => {
  const cases: { state: ChangeRequestStateName; command: ChangeRequestCommand; kind: string; message: RegExp; overrides?: Partial<ChangeRequest> }[] = [
    { state: 'Draft', command: commandFor('state.review'), kind: 'BadDataError', message: /without changes/, overrides: { changes: [] } },
    { state: 'In review', command: { ...commandFor('state.approve'), author }, kind: 'ForbiddenError', message: /your own change request/ },
    { state: 'In review', command: commandFor('state.approve'), kind: 'BadDataError', message: /"In review".*already approved/, overrides: { minApprovals: 2, approvals: [{ createdBy: approver, createdAt: now }] } },
    { state: 'In review', command: { ...commandFor('state.reject'), author }, kind: 'ForbiddenError', message: /your own change request/ },
    { state: 'Draft', command: { ...commandFor('discard'), author: approver }, kind: 'ForbiddenError', message: /author or an admin/ },
    { state: 'Draft', command: { ...commandFor('state.cancel'), author: approver }, kind: 'ForbiddenError', message: /author or an admin/ },
    { state: 'Approved', command: { ...commandFor('state.schedule'), scheduledAt: '2024-04-30T10:00:00.000Z' } as ChangeRequestCommand, kind: 'BadDataError', message: /in the future/ },
    { state: 'Draft', command: { ...commandFor('change.edit'), changeId: 99 } as ChangeRequestCommand, kind: 'NotFoundError', message: /change 99/ },
    { state: 'In review', command: { ...commandFor('change.discard'), changeId: 99 } as ChangeRequestCommand, kind: 'NotFoundError', message: /change 99/ },
  ]
  for (const c of cases) {
    const request = requestIn(c.state, c.overrides)
    const { before, after, emitted } = send(request, c.command)
    const decision = emitted[0]
    t.equal(decision?.type, 'rejected', `${c.state} × ${c.command.type}: rejected`)
    if (decision?.type !== 'rejected') continue
    t.equal(decision.error.kind, c.kind)
    t.match(decision.error.message, c.message)
    t.equal(after.context.request, before.context.request, 'the request is untouched')
    t.equal(lifeOf(after), lifeOf(before), 'the machine stays')
  }
})

t.test('a whole life: create → changes → review → two approvals → schedule → apply', async (t) => {
  const { actor, emitted } = start(undefined)
  const second: Author = { id: 30, username: 'second@example.com' }
  actor.send({ ...commandFor('changeRequest.create'), minApprovals: 2 } as ChangeRequestCommand)
  t.equal(lifeOf(actor.snapshot), 'draft')
  actor.send(commandFor('change.add'))
  t.same(actor.snapshot.context.request?.changes.map((c) => c.id), [1, 2], 'changes get ids 1, 2')
  actor.send(commandFor('state.review'))
  t.equal(lifeOf(actor.snapshot), 'inReview')
  actor.send(commandFor('state.approve'))
  t.equal(lifeOf(actor.snapshot), 'inReview', 'one approval of two: still in review')
  actor.send(commandFor('state.approve'))
  t.equal(emitted[emitted.length - 1].type, 'rejected', 'the same approver twice is refused')
  t.equal(actor.snapshot.context.request?.approvals.length, 1)
  actor.send(commandFor('change.edit'))
  t.same(actor.snapshot.context.request?.approvals, [], 'editing while in review drops the approvals')
  actor.send(commandFor('state.approve'))
  actor.send({ ...commandFor('state.approve'), author: second })
  t.equal(lifeOf(actor.snapshot), 'approved', 'two distinct approvers: approved')
  t.same(actor.snapshot.context.request?.approvals.map((a) => a.createdBy.id), [20, 30])
  actor.send(commandFor('state.schedule'))
  t.equal(lifeOf(actor.snapshot), 'scheduled')
  t.match(actor.snapshot.context.request?.schedule, { status: 'pending', scheduledAt: '2024-05-03T10:00:00.000Z' })
  actor.send(commandFor('state.apply'))
  t.equal(lifeOf(actor.snapshot), 'applied')
  const last = emitted[emitted.length - 1]
  t.same(last.type === 'decided' ? last.events.map((e) => e.type) : [], ['change-request-applied', 'change-request-scheduled-application-success'])
  t.same(Object.keys(actor.snapshot.context.request?.stateTimestamps ?? {}), ['Draft', 'In review', 'Approved', 'Scheduled', 'Applied'])
})

t.test('a scheduled request marked failed or suspended stays Scheduled', async (t) => {
  for (const [type, status] of [['schedule.fail', 'failed'], ['schedule.suspend', 'suspended']] as const) {
    const { after, emitted } = send(requestIn('Scheduled'), commandFor(type))
    t.equal(emitted[0]?.type, 'decided')
    t.equal(lifeOf(after), 'scheduled')
    t.equal(after.context.request?.schedule?.status, status)
  }
})

// The schedule is the request's own timer (a delayed transition of its `scheduled` node), armed from
// the committed schedule when the actor starts.

const scheduledEnv = (nowIso: string, startedAtIso: string) => {
  let nowMs = Date.parse(nowIso)
  const scenario = new Scenario([environment('development'), environment('production', 'production')])
  scenario.createProject('web')
  scenario.createFeature('web', 'checkout')
  const env = {
    project: { world: () => { throw new Error('no project decision here') }, tags: () => ({ tagTypeExists: () => true }), instanceWorld: () => noProjects },
    instance: () => emptyInstance(),
    schedule: {
      everyMs: 100,
      clock: () => new Date(nowMs),
      due: (request: ChangeRequest, now: Date) =>
        dueJob({ startedAt: Date.parse(startedAtIso), project: (id) => scenario.project(id), instance: () => emptyInstance() }, request, now),
    },
  }
  return { env, setNow: (iso: string) => (nowMs = Date.parse(iso)) }
}

// The timer's event, as the scheduler would deliver it once its delay has passed.
const timerOf = (actions: readonly { type: string; params?: unknown }[]) => {
  const raised = actions.find((a) => a.type === 'xstate.raise' && (a.params as { delay?: number }).delay !== undefined)
  return raised && (raised.params as { event: { type: string }; delay: number })
}

t.test('a schedule missed while the server was down is marked failed when the actor starts, exactly once', async (t) => {
  // Due at 10:00; this process started at 11:00.
  const { env } = scheduledEnv('2024-05-02T11:00:00.000Z', '2024-05-02T11:00:00.000Z')
  const [restored, actions] = initialTransition(changeRequestMachine, { request: requestIn('Scheduled'), env })
  t.equal(lifeOf(restored), 'scheduled')
  const timer = timerOf(actions)
  t.equal(timer?.delay, 0, 'already due: the timer fires at once')

  const [firing, firingActions] = decideNow(changeRequestMachine, restored, timer!.event)
  t.equal(regionNode(firing, ['writer']), 'committing')
  t.same(firing.context.inFlight?.events.map((e) => e.type), ['change-request-scheduled-application-failure'])
  t.match(firing.context.inFlight?.events[0].data, { reason: 'The server was not running at the scheduled time.' })
  const again = timerOf(firingActions)
  t.ok(again, 'the timer is armed again')
  const [stillOne] = decideNow(changeRequestMachine, firing, again!.event)
  t.equal(stillOne.context.queue.length, 0, 'a tick while the failure is in flight gives nothing more')

  const [failed, failedActions] = decideNow(changeRequestMachine, stillOne, appendDone(stillOne.context.inFlight!.events, 40))
  t.match(failed.context.request, { state: 'Scheduled', schedule: { status: 'failed' } })
  t.match(reportsOf(failedActions), [{ type: 'committed', records: [{ id: 40 }], answers: [{ ticket: undefined }] }])
  const [after] = decideNow(changeRequestMachine, failed, (timerOf(failedActions) ?? again)!.event)
  t.equal(after.context.queue.length, 0, 'a failed schedule gives nothing more')
  t.equal(after.context.inFlight, undefined)
})

t.test('a schedule not yet due waits; when due, the request applies itself through the coordinated apply', async (t) => {
  const { env, setNow } = scheduledEnv('2024-05-02T09:00:00.000Z', '2024-05-02T08:00:00.000Z')
  const [restored, actions] = initialTransition(changeRequestMachine, { request: requestIn('Scheduled'), env })
  t.equal(timerOf(actions)?.delay, 100, "an hour early: the next tick is at the scheduler's granularity")
  const [waiting] = decideNow(changeRequestMachine, restored, timerOf(actions)!.event)
  t.same(waiting.context.queue, [], 'not yet')

  setNow('2024-05-02T10:00:00.000Z')
  const [applying] = decideNow(changeRequestMachine, waiting, timerOf(actions)!.event)
  t.same(applying.value, { life: { scheduled: 'waiting' }, writer: { coordinating: 'acquiring' } }, 'it holds its project to apply')
  t.match(applying.context.plan, { kind: 'apply', scheduled: true, plan: { projectId: 'web', step: { type: 'state.apply' } } })
})

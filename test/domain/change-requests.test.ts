import t from 'tap'
import { changeConflict, defaultChangeFor, featureConflict, stepsFor, targetOf } from '../../src/domain/change-request-changes.js'
import { checkChangeRequestRequirement, decideChangeRequestConfig } from '../../src/domain/change-request-rules.js'
import { isOpen, type Author, type Change, type ChangeRequest } from '../../src/domain/change-request-state.js'
import { applyingTo, decideChangeRequest, evolveChangeRequest, isChangeRequestEvent, type ChangeRequestCommand, type NewChange } from '../../src/domain/change-requests.js'
import type { CommandMeta, EventDraft } from '../../src/domain/events.js'
import { emptyInstance, type InstanceState, type Segment } from '../../src/domain/instance-state.js'
import { decideProject, type ProjectCommand } from '../../src/domain/project.js'
import { statusOf } from '../../src/http/errors.js'
import * as v from 'valibot'
import { payloadSchemas, type ChangeAction } from '../../src/schemas/change-requests.js'
import { Scenario, errorOf, featureVariants, typesOf, valueOf } from './fixtures/scenario.js'

const author: Author = { id: 10, username: 'author@example.com' }
const approver: Author = { id: 20, username: 'approver@example.com' }
const other: Author = { id: 30, username: 'other@example.com' }
const admin: Author = { id: null, username: 'admin-token' }

let tick = 0
const meta = (): CommandMeta => ({ now: new Date(Date.parse('2024-05-01T10:00:00.000Z') + 1000 * tick++).toISOString(), actor: { name: 'x', userId: 1 } })
type Fields = ChangeRequestCommand extends infer C ? (C extends unknown ? Omit<C, 'meta' | 'author' | 'isAdmin'> : never) : never
const cmd = (fields: Fields, by: Author = author, isAdmin = false) => ({ ...fields, meta: meta(), author: by, isAdmin }) as ChangeRequestCommand

const enable: NewChange = { feature: 'checkout', action: 'updateEnabled', payload: { enabled: true }, snapshot: null }

// Decides and evolves, as the machine does after it accepted the step.
const step = (request: ChangeRequest | undefined, command: ChangeRequestCommand) => {
  const events = valueOf(decideChangeRequest(request, command))
  return { events, request: events.reduce(evolveChangeRequest, request)! }
}
const refused = (request: ChangeRequest | undefined, command: ChangeRequestCommand) => errorOf(decideChangeRequest(request, command))

const created = (minApprovals = 1, changes: NewChange[] = [enable]) =>
  step(undefined, cmd({ type: 'changeRequest.create', id: 3, project: 'web', environment: 'production', minApprovals, changes })).request
const inReview = (minApprovals = 1) => step(created(minApprovals), cmd({ type: 'state.review' })).request
const approved = () => step(inReview(), cmd({ type: 'state.approve' }, approver)).request

t.test('create: a Draft with the changes, numbered from 1', async (t) => {
  const { events, request } = step(undefined, cmd({ type: 'changeRequest.create', id: 3, project: 'web', environment: 'production', minApprovals: 2, changes: [enable, { ...enable, payload: { enabled: false } }] }))
  t.same(typesOf(events), ['change-request-created', 'change-added', 'change-added'])
  for (const e of events) t.match(e, { project: 'web', environment: 'production', data: { changeRequestId: 3 } }, `${e.type} carries project, environment and request id`)
  t.match(events[1], { featureName: 'checkout', data: { change: { id: 1, action: 'updateEnabled', payload: { enabled: true }, createdBy: author } } })
  t.match(request, { id: 3, title: 'Change request #3', state: 'Draft', minApprovals: 2, createdBy: author, approvals: [], rejections: [], comments: [], schedule: null, discarded: false })
  t.same(request.changes.map((c) => c.id), [1, 2])
  t.equal(request.nextChangeId, 3)
  t.same(Object.keys(request.stateTimestamps), ['Draft'])
  t.ok(isOpen(request))
})

t.test('change.add continues the numbering; change.edit and change.discard need an existing change', async (t) => {
  let request = created()
  request = step(request, cmd({ type: 'change.add', changes: [{ ...enable, action: 'archiveFeature', payload: {} }] })).request
  t.same(request.changes.map((c) => [c.id, c.action]), [[1, 'updateEnabled'], [2, 'archiveFeature']])
  const edited = step(request, cmd({ type: 'change.edit', changeId: 1, change: { action: 'updateEnabled', payload: { enabled: false }, snapshot: [] } }))
  t.same(typesOf(edited.events), ['change-edited'])
  t.match(edited.request.changes[0], { id: 1, action: 'updateEnabled', payload: { enabled: false }, snapshot: [] })
  const discarded = step(edited.request, cmd({ type: 'change.discard', changeId: 2 }))
  t.same(typesOf(discarded.events), ['change-discarded'])
  t.same(discarded.request.changes.map((c) => c.id), [1])
  t.equal(discarded.request.nextChangeId, 3, 'a discarded change id is not reused')
  const missing = refused(request, cmd({ type: 'change.edit', changeId: 9, change: { action: 'archiveFeature', payload: {}, snapshot: null } }))
  t.equal(missing.kind, 'NotFoundError')
  t.equal(statusOf(missing), 404)
  t.equal(refused(request, cmd({ type: 'change.discard', changeId: 9 })).kind, 'NotFoundError')
})

t.test('editing or discarding a change while In review takes back the approvals; in Draft nothing to take', async (t) => {
  let request = inReview(2)
  request = step(request, cmd({ type: 'state.approve' }, approver)).request
  t.equal(request.approvals.length, 1)
  const edited = step(request, cmd({ type: 'change.edit', changeId: 1, change: { action: 'updateEnabled', payload: { enabled: false }, snapshot: null } })).request
  t.same(edited.approvals, [], 'edit drops approvals')
  t.equal(edited.state, 'In review', 'and stays in review')
  const discarded = step(step(request, cmd({ type: 'change.add', changes: [enable] })).request, cmd({ type: 'change.discard', changeId: 2 })).request
  t.same(discarded.approvals, [], 'discarding a change drops approvals')
})

t.test('title and comments', async (t) => {
  let request = created()
  const titled = step(request, cmd({ type: 'title.set', title: 'Roll out checkout' }))
  t.same(typesOf(titled.events), ['internal:change-request-title-updated'], 'a title is not an Unleash change-edited')
  t.equal(titled.request.title, 'Roll out checkout')
  t.same(titled.request.changes, request.changes, 'a title leaves the changes alone')
  request = titled.request
  const commented = step(request, cmd({ type: 'comment.add', text: 'first' }, approver))
  t.same(typesOf(commented.events), ['internal:change-request-comment-added'], 'a comment is not an Unleash change-added')
  request = commented.request
  request = step(request, cmd({ type: 'comment.add', text: 'second' })).request
  t.same(request.comments.map((c) => [c.id, c.text, c.createdBy.username]), [[1, 'first', approver.username], [2, 'second', author.username]])
  t.same(request.changes.map((c) => c.id), [1], 'a comment is not a change')
})

t.test('review needs changes', async (t) => {
  const empty = created(1, [])
  const error = refused(empty, cmd({ type: 'state.review' }))
  t.equal(error.kind, 'BadDataError')
  t.equal(statusOf(error), 400)
  const { events, request } = step(created(), cmd({ type: 'state.review' }))
  t.same(typesOf(events), ['change-request-sent-to-review'])
  t.equal(request.state, 'In review')
})

t.test('approvals: not the author, not twice, minApprovals distinct approvers', async (t) => {
  const own = refused(inReview(), cmd({ type: 'state.approve' }, author))
  t.equal(own.kind, 'ForbiddenError')
  t.equal(statusOf(own), 403)
  t.match(own.message, /own change request/)

  let request = inReview(2)
  const first = step(request, cmd({ type: 'state.approve', comment: 'ok' }, approver))
  t.same(typesOf(first.events), ['change-request-approval-added'], 'one of two: only the approval')
  t.equal(first.request.state, 'In review')
  request = first.request
  const twice = refused(request, cmd({ type: 'state.approve' }, approver))
  t.equal(twice.kind, 'BadDataError')
  t.equal(statusOf(twice), 400)
  t.match(twice.message, /already approved/)
  t.match(twice.message, /In review/, 'the refusal names the state')
  const second = step(request, cmd({ type: 'state.approve' }, other))
  t.same(typesOf(second.events), ['change-request-approval-added', 'change-request-approved'])
  t.equal(second.request.state, 'Approved')
  t.same(second.request.approvals.map((a) => a.createdBy), [approver, other])
  t.ok(second.request.stateTimestamps.Approved)

  const single = step(inReview(1), cmd({ type: 'state.approve' }, admin, true))
  t.same(typesOf(single.events), ['change-request-approval-added', 'change-request-approved'], 'minApprovals 1: one approval approves')
})

t.test('an admin may approve their own request (SEMANTICS 12)', async (t) => {
  const mine = step(undefined, { ...cmd({ type: 'changeRequest.create', id: 4, project: 'web', environment: 'production', minApprovals: 1, changes: [enable] }, admin, true) }).request
  const review = step(mine, cmd({ type: 'state.review' }, admin, true)).request
  const result = decideChangeRequest(review, cmd({ type: 'state.approve' }, admin, true))
  t.ok(result.ok, result.ok ? 'approved' : result.error.message)
})

t.test('reject, cancel and discard: who may', async (t) => {
  t.equal(refused(inReview(), cmd({ type: 'state.reject' }, author)).kind, 'ForbiddenError', 'the author cannot reject their own')
  const rejected = step(inReview(), cmd({ type: 'state.reject', comment: 'no' }, approver))
  t.same(typesOf(rejected.events), ['change-request-rejected'])
  t.equal(rejected.request.state, 'Rejected')
  t.same(rejected.request.rejections.map((r) => r.createdBy), [approver])
  t.notOk(isOpen(rejected.request))

  t.equal(refused(inReview(), cmd({ type: 'state.cancel' }, approver)).kind, 'ForbiddenError', 'someone else cannot cancel')
  const cancelled = step(approved(), cmd({ type: 'state.cancel' }, author)).request
  t.equal(cancelled.state, 'Cancelled')
  t.equal(cancelled.discarded, false)
  t.equal(step(inReview(), cmd({ type: 'state.cancel' }, admin, true)).request.state, 'Cancelled', 'an admin can cancel')

  t.equal(refused(created(), cmd({ type: 'discard' }, approver)).kind, 'ForbiddenError', 'someone else cannot discard')
  const discarded = step(created(), cmd({ type: 'discard' }, author))
  t.same(typesOf(discarded.events), ['change-request-discarded'])
  t.match(discarded.request, { state: 'Cancelled', discarded: true })
  t.notOk(isOpen(discarded.request))
})

t.test('schedule, apply, fail, suspend', async (t) => {
  const request = approved()
  const past = refused(request, { ...cmd({ type: 'state.schedule', scheduledAt: '2000-01-01T00:00:00.000Z' }, approver) })
  t.equal(past.kind, 'BadDataError')
  const scheduled = step(request, cmd({ type: 'state.schedule', scheduledAt: '2030-01-01T00:00:00Z' }, approver))
  t.same(typesOf(scheduled.events), ['change-request-scheduled'])
  t.match(scheduled.request, { state: 'Scheduled', schedule: { status: 'pending', scheduledAt: '2030-01-01T00:00:00.000Z', scheduledBy: approver } })
  t.ok(isOpen(scheduled.request), 'Scheduled is open')

  const applied = step(request, cmd({ type: 'state.apply' }, approver))
  t.same(typesOf(applied.events), ['change-request-applied'], 'applying an Approved request')
  t.equal(applied.request.state, 'Applied')
  const appliedLater = step(scheduled.request, cmd({ type: 'state.apply' }, approver))
  t.same(typesOf(appliedLater.events), ['change-request-applied', 'change-request-scheduled-application-success'])

  const failed = step(scheduled.request, cmd({ type: 'schedule.fail', reason: 'down' }, approver)).request
  t.match(failed, { state: 'Scheduled', schedule: { status: 'failed', failureReason: 'down' } })
  const suspended = step(scheduled.request, cmd({ type: 'schedule.suspend', reason: 'conflict' }, approver)).request
  t.match(suspended, { state: 'Scheduled', schedule: { status: 'suspended', reason: 'conflict' } })
})

t.test('any step on an unknown request is not found', async (t) => {
  t.equal(refused(undefined, cmd({ type: 'state.review' })).kind, 'NotFoundError')
  t.equal(evolveChangeRequest(undefined, { type: 'change-request-approved', createdAt: 'x', createdBy: 'x', createdByUserId: null, data: { changeRequestId: 1 } }), undefined)
})

t.test('which events belong to change requests', async (t) => {
  for (const type of ['change-request-created', 'change-added', 'change-edited', 'change-discarded', 'change-request-applied', 'change-request-scheduled-application-failure', 'internal:change-request-comment-added', 'internal:change-request-title-updated']) {
    t.ok(isChangeRequestEvent(type), type)
  }
  for (const type of ['change-request-configuration-updated', 'feature-created', 'feature-strategy-add', 'internal:feature-moved-out']) t.notOk(isChangeRequestEvent(type), type)
})

// ---- Changes against the project: conflicts, steps, default change ----

const segment = (id: number, constraints: unknown[] = []): Segment => ({ id, name: `seg-${id}`, description: null, project: null, constraints: constraints as Segment['constraints'], createdAt: '2024-01-01T00:00:00.000Z', createdBy: 'x' })
const instanceWith = (...segments: Segment[]): InstanceState => ({ ...emptyInstance(), segments: new Map(segments.map((s) => [s.id, s])) })

const world = () => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'checkout')
  s.createFeature('web', 'parent')
  const first = s.addStrategy('web', 'checkout', 'production', { name: 'default' })
  const second = s.addStrategy('web', 'checkout', 'production', { name: 'flexibleRollout' })
  return { s, first, second }
}

// A change as the route stores it: the payload parsed with its action's schema (which ties the two, hence the assertion).
const change = <A extends ChangeAction>(action: A, payload: v.InferInput<(typeof payloadSchemas)[A]>, feature: string | null = 'checkout'): Change =>
  ({ id: 1, feature, action, payload: v.parse(payloadSchemas[action], payload), createdAt: 'x', createdBy: author, snapshot: null }) as Change
const withSnapshot = (c: Change, s: Scenario, instance = instanceWith()): Change => ({ ...c, snapshot: targetOf(c, 'production', s.project('web'), instance) })

t.test('targets and conflicts of strategy changes', async (t) => {
  const { s, first } = world()
  const update = withSnapshot(change('updateStrategy', { id: first, name: 'default', parameters: {} }), s)
  t.match(update.snapshot, { id: first, name: 'default' }, 'the snapshot is the strategy as it is')
  t.equal(changeConflict(update, 'production', s.project('web'), instanceWith()), undefined, 'unchanged: no conflict')
  s.ok('web', { type: 'strategy.update', feature: 'checkout', environment: 'production', id: first, input: { name: 'default', parameters: {}, title: 'changed' } as any })
  t.equal(changeConflict(update, 'production', s.project('web'), instanceWith()), 'The strategy has been changed since this change was added')
  s.ok('web', { type: 'strategy.delete', feature: 'checkout', environment: 'production', id: first })
  t.equal(changeConflict(update, 'production', s.project('web'), instanceWith()), 'The strategy has been deleted')
  const del = change('deleteStrategy', { id: first })
  t.equal(changeConflict(del, 'production', s.project('web'), instanceWith()), 'The strategy has been deleted')
})

t.test('flag-level conflicts: archived or deleted flag', async (t) => {
  const { s } = world()
  const c = change('updateEnabled', { enabled: true })
  t.equal(featureConflict('checkout', s.project('web')), undefined)
  t.equal(featureConflict(null, s.project('web')), undefined, 'segment changes have no flag')
  t.equal(featureConflict('nope', s.project('web')), 'The feature flag has been deleted')
  s.ok('web', { type: 'feature.archive', names: ['checkout'] })
  t.equal(featureConflict('checkout', s.project('web')), 'The feature flag has been archived')
  t.equal(changeConflict(c, 'production', s.project('web'), instanceWith()), 'The feature flag has been archived')
})

t.test('variant and segment conflicts', async (t) => {
  const { s } = world()
  const patch = withSnapshot(change('patchVariant', { variants: [] }), s)
  t.same(patch.snapshot, [])
  t.equal(changeConflict(patch, 'production', s.project('web'), instanceWith()), undefined)
  s.ok('web', { type: 'variants.set', feature: 'checkout', environments: ['production'], variants: featureVariants([{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }]) })
  t.equal(changeConflict(patch, 'production', s.project('web'), instanceWith()), 'The variants have been changed since this change was added')

  const seg = segment(5)
  const upd = withSnapshot(change('updateSegment', { id: 5, name: 'seg-5', constraints: [] }, null), s, instanceWith(seg))
  t.same(upd.snapshot, seg)
  t.equal(changeConflict(upd, 'production', s.project('web'), instanceWith(seg)), undefined)
  t.equal(changeConflict(upd, 'production', s.project('web'), instanceWith({ ...seg, name: 'renamed' })), 'The segment has been changed since this change was added')
  t.equal(changeConflict(upd, 'production', s.project('web'), instanceWith()), 'The segment has been deleted')
})

t.test('stepsFor: each action is the direct command it stands for, in order, an enable after its flag\'s strategy changes', async (t) => {
  const { s, first, second } = world()
  const request: ChangeRequest = {
    ...created(),
    changes: [
      change('updateEnabled', { enabled: true }),
      change('addStrategy', { name: 'default', constraints: [], parameters: {}, segments: [], variants: [] }),
      change('updateStrategy', { id: first, name: 'default', parameters: {}, title: 't' }),
      change('reorderStrategy', [{ id: second, sortOrder: 0 }, { id: first, sortOrder: 1 }]),
      change('deleteStrategy', { id: second }),
      change('patchVariant', { variants: featureVariants([{ name: 'a', weight: 1000, weightType: 'variable', stickiness: 'default' }]) }),
      change('addDependency', { feature: 'parent' }),
      change('deleteDependency', { feature: 'parent' }),
      change('archiveFeature', {}),
      change('updateSegment', { id: 5, name: 'n', constraints: [] }, null),
      change('deleteSegment', { id: 5 }, null),
    ].map((c, i) => ({ ...c, id: i + 1 })),
  }
  let n = 0
  const m = meta()
  const steps = stepsFor(request, m, { newStrategyId: () => `new-${++n}` })
  t.same(steps.project.map((c) => c.type), [
    'strategy.add', 'strategy.update', 'strategy.reorder', 'strategy.delete', 'featureEnvironment.toggle', 'variants.set',
    'dependency.add', 'dependency.remove', 'feature.archive',
  ])
  t.same(steps.instance.map((c) => c.type), ['segment.update', 'segment.delete'])
  t.match(steps.project[1], { id: first, input: { title: 't' } })
  t.notOk('id' in (steps.project[1] as { input: object }).input, 'the strategy id is not part of the update input')
  t.match(steps.project[6], { dependency: { feature: 'parent', enabled: true, variants: [] } }, 'addDependency defaults')
  t.match(steps.project[5], { environments: ['production'] })
  for (const c of steps.project) t.equal(c.meta, m, `${c.type} carries the apply meta`)

  // Decided as one batch against the project (the way applying does), every command succeeds in order.
  const bypass = { ...meta(), mayBypassChangeRequests: () => true }
  s.ok('web', { type: 'changeRequestConfig.set', environment: 'production', changeRequestsEnabled: true, requiredApprovals: 1 })
  const projectSteps = stepsFor(request, bypass, { newStrategyId: () => `new-${++n}` }).project
  const batch = { type: 'batch', commands: projectSteps.map((c) => ({ ...c, world: s.world() })), meta: bypass, world: s.world() } as ProjectCommand
  const events = valueOf(decideProject(s.project('web'), batch))
  const types: string[] = typesOf(events)
  const expected = [
    'feature-strategy-add', 'feature-strategy-update', 'strategy-order-changed', 'feature-strategy-remove', 'feature-environment-enabled',
    'feature-environment-variants-updated', 'feature-dependency-added', 'feature-dependency-removed', 'feature-archived',
  ]
  t.same(types.filter((type) => expected.includes(type)), expected, 'the batch writes the normal events of each step, in the order of the steps')
})

t.test('applying records what each change replaced, as it was just before, and keeps it on the change', async (t) => {
  const { s, first, second } = world()
  s.ok('web', { type: 'variants.set', feature: 'checkout', environments: ['production'], variants: featureVariants([{ name: 'old', weight: 1000, weightType: 'variable', stickiness: 'default' }]) })
  s.ok('web', { type: 'dependency.add', feature: 'checkout', dependency: { feature: 'parent', enabled: false, variants: [] } })
  const seg = segment(5, [{ contextName: 'userId', operator: 'IN', values: ['1'] }])
  const instance = instanceWith(seg)
  const project = s.project('web')
  const strategy = (id: string) => project.features.get('checkout')!.environments.get('production')!.strategies.find((x) => x.id === id)
  const changes = [
    change('updateEnabled', { enabled: true }),
    change('addStrategy', { name: 'default' }),
    change('updateStrategy', { id: first, name: 'default', parameters: {}, title: 't' }),
    change('reorderStrategy', [{ id: second, sortOrder: 0 }, { id: first, sortOrder: 1 }]),
    change('deleteStrategy', { id: second }),
    change('patchVariant', { variants: [] }),
    change('addDependency', { feature: 'parent' }),
    change('deleteDependency', { feature: 'parent' }),
    change('deleteDependency', { feature: 'elsewhere' }),
    change('archiveFeature', {}),
    change('updateSegment', { id: 5, name: 'seg-5', constraints: [] }, null),
    change('deleteSegment', { id: 5 }, null),
  ].map((c, i) => ({ ...c, id: i + 1 }))
  const request: ChangeRequest = { ...approved(), changes }
  const dependency = { feature: 'parent', enabled: false, variants: [] }
  const expected = [
    { changeId: 1, replaced: { enabled: false } },
    { changeId: 3, replaced: strategy(first) },
    { changeId: 4, replaced: [{ id: first, sortOrder: strategy(first)!.sortOrder }, { id: second, sortOrder: strategy(second)!.sortOrder }] },
    { changeId: 5, replaced: strategy(second) },
    { changeId: 6, replaced: [{ name: 'old', weight: 1000, weightType: 'variable', stickiness: 'default' }] },
    { changeId: 7, replaced: [dependency] },
    { changeId: 8, replaced: [dependency] },
    { changeId: 11, replaced: seg },
    { changeId: 12, replaced: seg },
  ]
  const applied = step(request, applyingTo(cmd({ type: 'state.apply' }, approver), { project, instance }))
  const data = applied.events[0].type === 'change-request-applied' ? applied.events[0].data : undefined
  t.same(data, { changeRequestId: 3, replaced: expected }, 'change-request-applied names each change that replaced something, with what it replaced')
  t.same(applied.request.changes.map((c) => c.replaced), [expected[0].replaced, undefined, ...expected.slice(1, 7).map((e) => e.replaced), undefined, undefined, seg, seg],
    'each change keeps what it replaced; a new strategy, a dependency on another parent and archiving replaced nothing')
  t.equal(applied.request.state, 'Applied')

  const unrecorded = step(request, cmd({ type: 'state.apply' }, approver))
  t.same(unrecorded.events[0].data, { changeRequestId: 3 }, 'without the held states (an older log), nothing is recorded')
  t.ok(unrecorded.request.changes.every((c) => c.replaced === undefined))
  const review = cmd({ type: 'state.review' })
  t.equal(applyingTo(review, { project, instance }), review, 'only an application takes the states')
})

t.test('a batch is all or nothing: a failing later step fails the whole batch', async (t) => {
  const { s, first } = world()
  const bypass = { ...meta(), mayBypassChangeRequests: () => true }
  const commands = [
    { type: 'strategy.update', feature: 'checkout', environment: 'production', id: first, input: { name: 'default', parameters: {}, title: 'x' }, meta: bypass, world: s.world() },
    { type: 'strategy.reorder', feature: 'checkout', environment: 'production', order: [{ id: 'gone', sortOrder: 0 }], meta: bypass, world: s.world() },
  ]
  const result = decideProject(s.project('web'), { type: 'batch', commands, meta: bypass, world: s.world() } as unknown as ProjectCommand)
  t.notOk(result.ok, 'refused')
})

t.test('defaultChange: enabling a flag with no active strategy shows the strategy that will be added', async (t) => {
  const s = new Scenario()
  s.createProject('web')
  s.createFeature('web', 'bare')
  const request: ChangeRequest = { ...created(), changes: [{ ...change('updateEnabled', { enabled: true }, 'bare') }] }
  t.match(defaultChangeFor(request, 'bare', s.project('web')), { action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '100', groupId: 'bare' } } })
  const withStrategy: ChangeRequest = { ...request, changes: [...request.changes, { ...change('addStrategy', { name: 'default' }, 'bare'), id: 2 }] }
  t.equal(defaultChangeFor(withStrategy, 'bare', s.project('web')), undefined, 'not when the request adds a strategy')
  const disabling: ChangeRequest = { ...request, changes: [change('updateEnabled', { enabled: false }, 'bare')] }
  t.equal(defaultChangeFor(disabling, 'bare', s.project('web')), undefined, 'not when disabling')
  s.addStrategy('web', 'bare', 'production', { name: 'default' })
  t.equal(defaultChangeFor(request, 'bare', s.project('web')), undefined, 'not when an active strategy exists')
})

// ---- Blocking direct writes; configuration ----

t.test('direct writes to an environment that requires change requests are refused naming SKIP_CHANGE_REQUEST', async (t) => {
  const { s, first } = world()
  s.ok('web', { type: 'changeRequestConfig.set', environment: 'production', changeRequestsEnabled: true, requiredApprovals: 2 })
  t.match(s.project('web').environments.get('production'), { changeRequestsEnabled: true, requiredApprovals: 2 })
  const blocked: ProjectCommand[] = [
    { type: 'featureEnvironment.toggle', feature: 'checkout', environment: 'production', enabled: true, activateDisabledStrategies: false, newStrategyId: 'n' },
    { type: 'strategy.add', feature: 'checkout', environment: 'production', input: { name: 'default' } as any, id: 'n2' },
    { type: 'strategy.update', feature: 'checkout', environment: 'production', id: first, input: { name: 'default' } as any },
    { type: 'strategy.delete', feature: 'checkout', environment: 'production', id: first },
    { type: 'strategy.reorder', feature: 'checkout', environment: 'production', order: [] },
    { type: 'variants.set', feature: 'checkout', environments: ['development', 'production'], variants: [] },
    { type: 'feature.archive', names: ['checkout'] },
    { type: 'dependency.add', feature: 'checkout', dependency: { feature: 'parent', enabled: true, variants: [] } },
    { type: 'dependency.remove', feature: 'checkout' },
  ].map((c) => ({ ...c, meta: meta(), world: s.world() }) as ProjectCommand)
  for (const command of blocked) {
    const error = errorOf(decideProject(s.project('web'), command))
    t.equal(error.kind, 'PermissionError', `${command.type}: PermissionError`)
    t.equal(statusOf(error), 403, `${command.type}: 403`)
    t.match(error.message, /SKIP_CHANGE_REQUEST/, `${command.type}: names SKIP_CHANGE_REQUEST`)
    t.same(error.extra, { permissions: ['SKIP_CHANGE_REQUEST'] })
    const bypass = { ...command, meta: { ...meta(), mayBypassChangeRequests: () => true } } as ProjectCommand
    const result = decideProject(s.project('web'), bypass)
    t.ok(result.ok || result.error.kind !== 'PermissionError', `${command.type}: passes with SKIP_CHANGE_REQUEST`)
  }
  const dev: ProjectCommand[] = [
    { type: 'featureEnvironment.toggle', feature: 'checkout', environment: 'development', enabled: true, activateDisabledStrategies: false, newStrategyId: 'n' },
    { type: 'strategy.add', feature: 'checkout', environment: 'development', input: { name: 'default', constraints: [], parameters: {}, segments: [], variants: [] } as any, id: 'n3' },
    { type: 'variants.set', feature: 'checkout', environments: ['development'], variants: [] },
  ].map((c) => ({ ...c, meta: meta(), world: s.world() }) as ProjectCommand)
  for (const command of dev) t.ok(decideProject(s.project('web'), command).ok, `${command.type} in development: not blocked`)
})

t.test('change request configuration', async (t) => {
  const configure = (environment: string, changeRequestsEnabled: boolean, requiredApprovals: number) =>
    ({ type: 'changeRequestConfig.set', environment, changeRequestsEnabled, requiredApprovals, meta: meta() }) as const
  const { s } = world()
  const state = s.project('web')
  t.same(valueOf(decideChangeRequestConfig(state, configure('production', false, 1))), [], 'same as now: no event')
  const events: EventDraft[] = valueOf(decideChangeRequestConfig(state, configure('production', true, 3)))
  t.same(typesOf(events), ['change-request-configuration-updated'])
  t.match(events[0], { project: 'web', environment: 'production', data: { changeRequestsEnabled: true, requiredApprovals: 3 }, preData: { changeRequestsEnabled: false, requiredApprovals: 1 } })
  t.equal(errorOf(decideChangeRequestConfig(state, configure('staging', true, 1))).kind, 'NotFoundError')
  t.equal(checkChangeRequestRequirement(state, { type: 'strategy.add', environment: 'production', meta: meta() }), undefined, 'not enabled: nothing blocked')
})

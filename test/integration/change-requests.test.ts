import t from 'tap'
import type { Test } from 'tap'
import {
  addStrategy,
  api,
  createFeature,
  createProject,
  createSegment,
  expectOk,
  getFeatureEnvironment,
  listEvents,
  request,
  type ApiResult,
  type ServerRef,
} from '../helpers/admin-api.js'
import { eventually, expectError, expectStatus, sleep } from '../helpers/expect.js'
import { makeDataDir, randomAdminToken, startTestServer } from '../helpers/server.js'

// Change requests over HTTP with two people: the author (root role Editor, logged in with a session
// cookie) and approvers (other Editors, with personal access tokens) — plus the admin token for set-up
// and direct writes past the change request requirement.

const password = 'Change-Req1uest!'
const skipMessage =
  'You don\'t have the required permissions to perform this operation. To perform this action, you need the "SKIP_CHANGE_REQUEST" permission.'

interface Who {
  name: string
  token?: string
  cookie?: string
}

const as = (s: ServerRef, who: Who, method: string, path: string, body?: unknown): Promise<ApiResult> =>
  request(s, { method, path, body, token: who.token ?? null, headers: who.cookie ? { cookie: who.cookie } : {} })

const adminOf = (s: ServerRef): Who => ({ name: 'admin', token: s.adminToken })

// A user with a password, logged in: the session cookie is the credential.
const loggedIn = async (s: ServerRef, username: string, rootRole = 'Editor'): Promise<Who> => {
  expectOk(await api(s, 'POST', '/api/admin/user-admin', { username, email: `${username}@example.com`, password, rootRole }), `create ${username}`)
  const login = expectOk(await request(s, { method: 'POST', path: '/auth/simple/login', body: { username, password }, token: null }), `log in ${username}`)
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0]
  if (!cookie) throw new Error(`no session cookie for ${username}`)
  return { name: username, cookie }
}

// The same user acting with a personal access token instead.
const withPat = async (s: ServerRef, who: Who): Promise<Who> => {
  const res = expectOk(await as(s, who, 'POST', '/api/admin/user/tokens', { description: `pat of ${who.name}`, expiresAt: '2099-01-01T00:00:00.000Z' }), `PAT for ${who.name}`)
  return { name: who.name, token: res.body.secret }
}

const crPath = (p: string) => `/api/admin/projects/${p}/change-requests`
const draftPath = (p: string, env: string) => `/api/admin/projects/${p}/environments/${env}/change-requests`

const setConfig = async (s: ServerRef, p: string, env: string, requiredApprovals = 1, enabled = true) =>
  expectOk(
    await api(s, 'PUT', `/api/admin/projects/${p}/environments/${env}/change-requests/config`, { changeRequestsEnabled: enabled, requiredApprovals }),
    `configure ${p}/${env}`,
  )

const addChanges = (s: ServerRef, who: Who, p: string, env: string, body: unknown) => as(s, who, 'POST', draftPath(p, env), body)
const getRequest = (s: ServerRef, p: string, id: number) => api(s, 'GET', `${crPath(p)}/${id}`)
const setState = (s: ServerRef, who: Who, p: string, id: number, body: Record<string, unknown>) => as(s, who, 'PUT', `${crPath(p)}/${id}/state`, body)

const totalEvents = async (s: ServerRef): Promise<number> => (await listEvents(s)).body.totalEvents
const newestEventId = async (s: ServerRef): Promise<number> => (await listEvents(s)).body.events[0]?.id ?? 0
const eventsAfter = async (s: ServerRef, id: number): Promise<any[]> =>
  ((await listEvents(s)).body.events as any[]).filter((e) => e.id > id).sort((a, b) => a.id - b.id)

// The request as served and the size of the event log: a refused step must leave both as they were.
const frozen = async (s: ServerRef, p: string, id: number) => ({ request: (await getRequest(s, p, id)).body, events: await totalEvents(s) })

const refusedTransition = async (t: Test, s: ServerRef, p: string, id: number, attempt: () => Promise<ApiResult>, state: string, verb: string, what: string) => {
  const before = await frozen(s, p, id)
  const res = await attempt()
  expectError(t, res, { status: 400, name: 'BadDataError', message: `Change request ${id} is "${state}", so it cannot be ${verb}.` }, what)
  t.same(await frozen(s, p, id), before, `${what}: the request and the event log are unchanged`)
}

const featureEnv = async (s: ServerRef, p: string, f: string, env: string) => expectOk(await getFeatureEnvironment(s, p, f, env), `read ${f}/${env}`).body

const s = await startTestServer(t, { env: { SCHEDULER_INTERVAL_MS: '100' } })
const admin = adminOf(s)
const author = await loggedIn(s, 'author')
const approverSession = await loggedIn(s, 'approver')
const approver = await withPat(s, approverSession)
const second = await withPat(s, await loggedIn(s, 'second'))
const viewer = await loggedIn(s, 'viewer', 'Viewer')

// Flag names are global: each project gets its own.
const shortNames = ['checkout', 'gate', 'parent', 'child', 'orphan', 'old', 'main', 'alpha', 'beta', 'gamma', 'bare'] as const
const namesIn = (p: string) => Object.fromEntries(shortNames.map((n) => [n, `${p}-${n}`])) as Record<(typeof shortNames)[number], string>

// A project with flags that have one strategy in production, change requests required there.
const setUpProject = async (p: string, requiredApprovals = 1, features: string[] = [namesIn(p).checkout]) => {
  expectOk(await createProject(s, { id: p, name: p }), `create project ${p}`)
  const strategies: Record<string, string> = {}
  for (const f of features) {
    expectOk(await createFeature(s, p, f), `create ${f}`)
    strategies[f] = expectOk(await addStrategy(s, p, f, 'production', { name: 'default' }), `strategy on ${f}`).body.id
  }
  await setConfig(s, p, 'production', requiredApprovals)
  return strategies
}

// Author drafts and sends to review; approvers approve; returns the id.
const toApproved = async (t: Test, p: string, changes: unknown, approvers: Who[] = [approver]) => {
  const created = await addChanges(s, author, p, 'production', changes)
  expectStatus(t, created, 200, 'draft the changes')
  const id = created.body.id as number
  expectStatus(t, await setState(s, author, p, id, { state: 'In review' }), 200, 'send to review')
  for (const who of approvers) expectStatus(t, await setState(s, who, p, id, { state: 'Approved' }), 200, `approved by ${who.name}`)
  t.equal((await getRequest(s, p, id)).body.state, 'Approved', 'the request is Approved')
  return id
}

t.test('configuration, and the 403 on direct writes where change requests are required', async (t) => {
  const p = 'guard'
  const N = namesIn(p)
  expectOk(await createProject(s, { id: p, name: p }), 'create project')
  expectOk(await createFeature(s, p, N.gate), 'create gate')
  expectOk(await createFeature(s, p, N.parent), 'create parent')
  const strategyId = expectOk(await addStrategy(s, p, N.gate, 'production', { name: 'default' }), 'add strategy').body.id
  await setConfig(s, p, 'production', 1)

  const config = await api(s, 'GET', `${crPath(p)}/config`)
  t.equal(config.status, 200)
  t.match(config.body.find((c: any) => c.environment === 'production'), { environment: 'production', type: 'production', changeRequestEnabled: true, requiredApprovals: 1 })
  t.match(config.body.find((c: any) => c.environment === 'development'), { changeRequestEnabled: false })
  expectError(t, await api(s, 'PUT', `/api/admin/projects/${p}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 11 }), { status: 400 }, 'requiredApprovals above 10')

  const feature = `/api/admin/projects/${p}/features/${N.gate}`
  const prod = `${feature}/environments/production`
  const variants = [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }]
  const writes: [string, string, unknown?][] = [
    ['POST', `${prod}/on`],
    ['POST', `${prod}/off`],
    ['POST', `${prod}/strategies`, { name: 'default' }],
    ['PUT', `${prod}/strategies/${strategyId}`, { name: 'default', parameters: {}, title: 'changed' }],
    ['PATCH', `${prod}/strategies/${strategyId}`, [{ op: 'replace', path: '/title', value: 'patched' }]],
    ['DELETE', `${prod}/strategies/${strategyId}`],
    ['POST', `${prod}/strategies/set-sort-order`, [{ id: strategyId, sortOrder: 1 }]],
    ['PUT', `${prod}/variants`, variants],
    ['PUT', `${feature}/variants-batch`, { variants, environments: ['production'] }],
    ['DELETE', feature],
    ['POST', `${feature}/dependencies`, { feature: N.parent }],
    ['DELETE', `${feature}/dependencies`],
  ]
  const before = await totalEvents(s)
  for (const [method, path, body] of writes) {
    const res = await as(s, author, method, path, body)
    expectError(t, res, { status: 403, name: 'PermissionError', message: skipMessage }, `${method} ${path.slice(path.indexOf('/features'))} by an Editor`)
    t.same(res.body.permissions, ['SKIP_CHANGE_REQUEST'], 'names SKIP_CHANGE_REQUEST')
    t.notMatch(res.body.message, /production/, 'no environment in the message')
  }
  t.equal(await totalEvents(s), before, 'no direct write went through')
  t.match(await featureEnv(s, p, N.gate, 'production'), { enabled: false, strategies: [{ id: strategyId, title: null }] })

  expectStatus(t, await as(s, author, 'POST', `${feature}/environments/development/strategies`, { name: 'default' }), 200, 'development needs no change request')
  expectStatus(t, await as(s, author, 'POST', `${feature}/environments/development/on`), 200, 'on in development')
  expectStatus(t, await as(s, admin, 'POST', `${prod}/strategies`, { name: 'flexibleRollout' }), 200, 'the admin token skips change requests')

  expectError(t, await as(s, viewer, 'POST', draftPath(p, 'production'), { feature: N.gate, action: 'updateEnabled', payload: { enabled: true } }), { status: 403 }, 'a Viewer cannot draft')

  await setConfig(s, p, 'production', 1, false)
  expectStatus(t, await as(s, author, 'POST', `${prod}/on`), 200, 'once disabled, direct writes pass again')

  t.test('an Editor who owns the project may approve and apply but not skip change requests', async (t) => {
    const owned = 'owned'
    const flag = `${owned}-flag`
    expectStatus(t, await as(s, author, 'POST', '/api/admin/projects', { id: owned, name: owned }), 201, 'an Editor creates a project and owns it')
    expectStatus(t, await as(s, author, 'POST', `/api/admin/projects/${owned}/features`, { name: flag }), 201, 'flag')
    expectStatus(t, await as(s, author, 'PUT', `/api/admin/projects/${owned}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 1 }), 204, 'the Owner requires change requests')
    const res = await as(s, author, 'POST', `/api/admin/projects/${owned}/features/${flag}/environments/production/strategies`, { name: 'default' })
    expectError(t, res, { status: 403, name: 'PermissionError', message: skipMessage }, 'the Owner cannot write past it')
    const id = (await addChanges(s, approver, owned, 'production', { feature: flag, action: 'addStrategy', payload: { name: 'default' } })).body.id as number
    expectStatus(t, await setState(s, approver, owned, id, { state: 'In review' }), 200, 'to review')
    expectStatus(t, await setState(s, author, owned, id, { state: 'Approved' }), 200, 'the Owner approves')
    expectStatus(t, await setState(s, author, owned, id, { state: 'Applied' }), 200, 'the Owner applies')
    t.equal((await featureEnv(s, owned, flag, 'production')).strategies.length, 1)
  })
})

t.test('the whole flow over HTTP, and every invalid transition refused with nothing changed', async (t) => {
  const p = 'flow'
  const N = namesIn(p)
  await setUpProject(p)
  const path = crPath(p)

  const created = await addChanges(s, author, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: true } })
  expectStatus(t, created, 200, 'draft created')
  const id = created.body.id as number
  t.match(created.body, {
    id,
    title: `Change request #${id}`,
    environment: 'production',
    project: p,
    minApprovals: 1,
    state: 'Draft',
    createdBy: { username: 'author' },
    features: [{ name: N.checkout, changes: [{ id: 1, action: 'updateEnabled', payload: { enabled: true }, createdBy: { username: 'author' } }] }],
    segments: [],
    approvals: [],
    rejections: [],
    comments: [],
  })
  t.type(created.body.createdAt, 'string')
  const again = await addChanges(s, author, p, 'production', [{ feature: N.checkout, action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '50' } } }])
  t.equal(again.body.id, id, "the author's open draft takes further changes")
  t.same(again.body.features[0].changes.map((c: any) => c.action), ['updateEnabled', 'addStrategy'])
  expectError(t, await addChanges(s, author, p, 'production', { feature: 'nope', action: 'updateEnabled', payload: { enabled: true } }), { status: 404 }, 'unknown flag')
  expectError(t, await addChanges(s, author, p, 'production', { feature: N.checkout, action: 'teleport', payload: {} }), { status: 400 }, 'unknown action')
  expectError(t, await addChanges(s, author, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: 'yes' } }), { status: 400 }, 'bad payload')

  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Approved' }), 'Draft', 'approved', 'approve a Draft')
  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Applied' }), 'Draft', 'applied', 'apply a Draft')
  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Rejected' }), 'Draft', 'rejected', 'reject a Draft')

  expectStatus(t, await setState(s, author, p, id, { state: 'In review' }), 200, 'author sends to review')
  t.equal((await getRequest(s, p, id)).body.state, 'In review')
  t.ok((await getRequest(s, p, id)).body.stateTimestamps['In review'], 'stateTimestamps records In review')

  // Only a Draft takes new changes: the author's next change starts a new draft.
  const beforeNew = (await getRequest(s, p, id)).body
  const next = await addChanges(s, author, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: false } })
  t.not(next.body.id, id, 'a new draft, not the request in review')
  t.equal(next.body.state, 'Draft')
  t.same((await getRequest(s, p, id)).body, beforeNew, 'the request in review did not take the change')
  expectStatus(t, await as(s, author, 'DELETE', `${path}/${next.body.id}`), 200, 'discard the new draft')
  expectError(t, await getRequest(s, p, next.body.id), { status: 404 }, 'a discarded draft is gone')

  let before = await frozen(s, p, id)
  expectError(t, await setState(s, author, p, id, { state: 'Approved' }), { status: 403, message: /own change request/ }, 'the author cannot approve their own request')
  t.same(await frozen(s, p, id), before, 'nothing changed')
  before = await frozen(s, p, id)
  expectError(t, await setState(s, viewer, p, id, { state: 'Approved' }), { status: 403, message: /APPROVE_CHANGE_REQUEST/ }, 'a Viewer cannot approve')
  t.same(await frozen(s, p, id), before, 'nothing changed')
  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Applied' }), 'In review', 'applied', 'apply an unapproved request')
  await refusedTransition(t, s, p, id, () => setState(s, author, p, id, { state: 'In review' }), 'In review', 'sent to review', 'review twice')
  t.match(await featureEnv(s, p, N.checkout, 'production'), { enabled: false }, 'nothing applied yet')

  const approved = await setState(s, approver, p, id, { state: 'Approved', comment: 'ship it' })
  expectStatus(t, approved, 200, 'another Editor approves')
  t.match(approved.body, { state: 'Approved', approvals: [{ createdBy: { username: 'approver' } }] })
  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Approved' }), 'Approved', 'approved', 'approve twice')
  await refusedTransition(t, s, p, id, () => setState(s, second, p, id, { state: 'Approved' }), 'Approved', 'approved', 'approve an Approved request')
  await refusedTransition(t, s, p, id, () => as(s, author, 'PUT', `${path}/${id}/changes/1`, { payload: { enabled: false } }), 'Approved', 'edited', 'edit an Approved request')
  await refusedTransition(t, s, p, id, () => as(s, author, 'PUT', `${path}/${id}/title`, { title: 'late' }), 'Approved', 'retitled', 'retitle an Approved request')

  const mark = await newestEventId(s)
  const applied = await setState(s, approver, p, id, { state: 'Applied' })
  expectStatus(t, applied, 200, 'the approver applies')
  t.equal(applied.body.state, 'Applied')
  const env = await featureEnv(s, p, N.checkout, 'production')
  t.equal(env.enabled, true, 'the flag is on in production')
  t.same(env.strategies.map((x: any) => x.name).sort(), ['default', 'flexibleRollout'], 'the strategy was added')
  const events = await eventsAfter(s, mark)
  t.same(events.map((e) => e.type).sort(), ['change-request-applied', 'feature-environment-enabled', 'feature-strategy-add'])
  t.equal(events[events.length - 1].type, 'change-request-applied', 'change-request-applied is written last')
  t.same(events.map((e) => e.id), events.map((_, i) => mark + 1 + i), 'one append: consecutive ids')
  t.match(events[events.length - 1], { project: p, environment: 'production', data: { changeRequestId: id } })

  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Applied' }), 'Applied', 'applied', 'apply twice')
  await refusedTransition(t, s, p, id, () => setState(s, author, p, id, { state: 'Cancelled' }), 'Applied', 'cancelled', 'cancel an Applied request')
  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Rejected' }), 'Applied', 'rejected', 'reject an Applied request')
  const comment = await as(s, approver, 'POST', `${path}/${id}/comments`, { text: 'applied fine' })
  expectStatus(t, comment, 201, 'an Applied request still takes comments')

  t.test('a Cancelled request is final', async (t) => {
    const cancelled = (await addChanges(s, author, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: false } })).body.id as number
    expectStatus(t, await setState(s, author, p, cancelled, { state: 'In review' }), 200, 'to review')
    expectError(t, await setState(s, approver, p, cancelled, { state: 'Cancelled' }), { status: 403 }, 'someone else cannot cancel')
    expectStatus(t, await setState(s, author, p, cancelled, { state: 'Cancelled' }), 200, 'the author cancels')
    t.equal((await getRequest(s, p, cancelled)).body.state, 'Cancelled')
    await refusedTransition(t, s, p, cancelled, () => setState(s, approver, p, cancelled, { state: 'Approved' }), 'Cancelled', 'approved', 'approve a Cancelled request')
    await refusedTransition(t, s, p, cancelled, () => setState(s, approver, p, cancelled, { state: 'Applied' }), 'Cancelled', 'applied', 'apply a Cancelled request')
    await refusedTransition(t, s, p, cancelled, () => setState(s, author, p, cancelled, { state: 'In review' }), 'Cancelled', 'sent to review', 'review a Cancelled request')
    await refusedTransition(t, s, p, cancelled, () => setState(s, author, p, cancelled, { state: 'Cancelled' }), 'Cancelled', 'cancelled', 'cancel twice')
    await refusedTransition(t, s, p, cancelled, () => as(s, author, 'PUT', `${path}/${cancelled}/changes/1`, { payload: { enabled: true } }), 'Cancelled', 'edited', 'edit a Cancelled request')
    await refusedTransition(t, s, p, cancelled, () => as(s, author, 'DELETE', `${path}/${cancelled}/changes/1`), 'Cancelled', 'have changes removed', 'remove a change of a Cancelled request')
    await refusedTransition(t, s, p, cancelled, () => as(s, author, 'PUT', `${path}/${cancelled}/title`, { title: 'x' }), 'Cancelled', 'retitled', 'retitle a Cancelled request')
    await refusedTransition(t, s, p, cancelled, () => as(s, author, 'DELETE', `${path}/${cancelled}`), 'Cancelled', 'discarded', 'discard a Cancelled request')
    t.match(await featureEnv(s, p, N.checkout, 'production'), { enabled: true }, 'the flag is untouched')
  })

  t.test('a Rejected request is final', async (t) => {
    const rejected = (await addChanges(s, author, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: false } })).body.id as number
    expectStatus(t, await setState(s, author, p, rejected, { state: 'In review' }), 200, 'to review')
    expectError(t, await setState(s, author, p, rejected, { state: 'Rejected' }), { status: 403 }, 'the author cannot reject their own')
    const res = await setState(s, approver, p, rejected, { state: 'Rejected', comment: 'not now' })
    expectStatus(t, res, 200, 'the approver rejects')
    t.match(res.body, { state: 'Rejected', rejections: [{ createdBy: { username: 'approver' } }] })
    await refusedTransition(t, s, p, rejected, () => setState(s, second, p, rejected, { state: 'Approved' }), 'Rejected', 'approved', 'approve a Rejected request')
    await refusedTransition(t, s, p, rejected, () => setState(s, approver, p, rejected, { state: 'Applied' }), 'Rejected', 'applied', 'apply a Rejected request')
    await refusedTransition(t, s, p, rejected, () => setState(s, author, p, rejected, { state: 'Cancelled' }), 'Rejected', 'cancelled', 'cancel a Rejected request')
    t.match(await featureEnv(s, p, N.checkout, 'production'), { enabled: true }, 'the flag is untouched')
  })

  t.test('an admin may approve and apply their own request', async (t) => {
    const own = (await addChanges(s, admin, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: false } })).body.id as number
    expectStatus(t, await setState(s, admin, p, own, { state: 'In review' }), 200, 'to review')
    expectStatus(t, await setState(s, admin, p, own, { state: 'Approved' }), 200, 'the admin approves their own')
    expectStatus(t, await setState(s, admin, p, own, { state: 'Applied' }), 200, 'and applies it')
    t.match(await featureEnv(s, p, N.checkout, 'production'), { enabled: false })
  })
})

t.test('requiredApprovals 2: two different approvers; editing in review takes the approvals back', async (t) => {
  const p = 'duo'
  const N = namesIn(p)
  await setUpProject(p, 2)
  const created = await addChanges(s, author, p, 'production', [
    { feature: N.checkout, action: 'updateEnabled', payload: { enabled: true } },
    { feature: N.checkout, action: 'addStrategy', payload: { name: 'userWithId', parameters: { userIds: 'x' } } },
  ])
  const id = created.body.id as number
  t.equal(created.body.minApprovals, 2, 'minApprovals comes from the configuration')
  expectStatus(t, await setState(s, author, p, id, { state: 'In review' }), 200, 'to review')

  const first = await setState(s, approver, p, id, { state: 'Approved' })
  expectStatus(t, first, 200, 'first approval')
  t.match(first.body, { state: 'In review', approvals: [{ createdBy: { username: 'approver' } }] }, 'one of two approvals: still In review')
  const before = await frozen(s, p, id)
  const twice = await setState(s, approver, p, id, { state: 'Approved' })
  expectError(t, twice, { status: 400, message: /"In review".*already approved/ }, 'the same approver again')
  t.match(twice.body.message, new RegExp(`Change request ${id}`))
  t.same(await frozen(s, p, id), before, 'a second approval by the same person changes nothing')
  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Applied' }), 'In review', 'applied', 'apply with one approval of two')

  const edited = await as(s, author, 'PUT', `${crPath(p)}/${id}/changes/1`, { payload: { enabled: true, shouldActivateDisabledStrategies: true } })
  expectStatus(t, edited, 200, 'the author edits the change in review')
  t.same(edited.body.approvals, [], 'editing while In review drops the approvals')
  t.equal(edited.body.state, 'In review')
  t.same(edited.body.features[0].changes[0].payload, { enabled: true, shouldActivateDisabledStrategies: true })

  expectStatus(t, await setState(s, approver, p, id, { state: 'Approved' }), 200, 'approver approves again')
  expectStatus(t, await as(s, author, 'DELETE', `${crPath(p)}/${id}/changes/2`), 200, 'the author removes a change in review')
  t.match((await getRequest(s, p, id)).body, { state: 'In review', approvals: [] }, 'removing a change while In review drops the approvals too')
  expectStatus(t, await setState(s, approver, p, id, { state: 'Approved' }), 200, 'approver approves once more')
  const both = await setState(s, second, p, id, { state: 'Approved' })
  expectStatus(t, both, 200, 'a second approver')
  t.equal(both.body.state, 'Approved', 'two distinct approvals: Approved')
  t.same(both.body.approvals.map((a: any) => a.createdBy.username), ['approver', 'second'])
  expectStatus(t, await setState(s, second, p, id, { state: 'Applied' }), 200, 'applied')
  const applied = await featureEnv(s, p, N.checkout, 'production')
  t.equal(applied.enabled, true)
  t.notOk(applied.strategies.some((x: any) => x.name === 'userWithId'), 'the removed change was not applied')
})

t.test('title, comments, editing and discarding a change, discarding a draft', async (t) => {
  const p = 'edits'
  const N = namesIn(p)
  const strategies = await setUpProject(p)
  const path = crPath(p)
  const created = await addChanges(s, author, p, 'production', [
    { feature: N.checkout, action: 'updateEnabled', payload: { enabled: true } },
    { feature: N.checkout, action: 'updateStrategy', payload: { id: strategies[N.checkout], name: 'default', parameters: {}, title: 'v1' } },
  ])
  const id = created.body.id as number

  expectStatus(t, await as(s, author, 'PUT', `${path}/${id}/title`, { title: 'Launch checkout' }), 204, 'set the title')
  t.equal((await getRequest(s, p, id)).body.title, 'Launch checkout')
  expectError(t, await as(s, author, 'PUT', `${path}/${id}/title`, { title: '  ' }), { status: 400 }, 'an empty title')

  const c1 = await as(s, approver, 'POST', `${path}/${id}/comments`, { text: 'why now?' })
  expectStatus(t, c1, 201, 'a comment')
  const c2 = await as(s, author, 'POST', `${path}/${id}/comments`, { text: 'because' })
  t.same(c2.body.comments.map((c: any) => [c.id, c.text, c.createdBy.username]), [[1, 'why now?', 'approver'], [2, 'because', 'author']])
  expectError(t, await as(s, author, 'POST', `${path}/${id}/comments`, { text: '' }), { status: 400 }, 'an empty comment')

  const edited = await as(s, author, 'PUT', `${path}/${id}/changes/2`, { payload: { id: strategies[N.checkout], name: 'default', parameters: {}, title: 'v2' } })
  expectStatus(t, edited, 200, 'edit a change of the draft')
  t.equal(edited.body.features[0].changes.find((c: any) => c.id === 2).payload.title, 'v2')
  expectError(t, await as(s, author, 'PUT', `${path}/${id}/changes/9`, { payload: { enabled: true } }), { status: 404 }, 'edit an unknown change')
  expectStatus(t, await as(s, author, 'DELETE', `${path}/${id}/changes/1`), 200, 'discard a change')
  t.same((await getRequest(s, p, id)).body.features[0].changes.map((c: any) => c.id), [2])

  expectStatus(t, await setState(s, author, p, id, { state: 'In review' }), 200, 'to review')
  expectStatus(t, await setState(s, approver, p, id, { state: 'Approved' }), 200, 'approve')
  expectStatus(t, await setState(s, approver, p, id, { state: 'Applied' }), 200, 'apply')
  t.match(await featureEnv(s, p, N.checkout, 'production'), { enabled: false, strategies: [{ id: strategies[N.checkout], title: 'v2' }] }, 'only the kept, edited change applied')
  // Its strategy now differs from the change's snapshot, yet a second apply is refused for its state, not as a conflict.
  await refusedTransition(t, s, p, id, () => setState(s, approver, p, id, { state: 'Applied' }), 'Applied', 'applied', 'apply an Applied request again')
  t.notOk((await getRequest(s, p, id)).body.features[0].changes.some((c: any) => c.conflict), 'a closed request shows no conflicts')

  t.test('discarding a whole draft: only its author (or an admin)', async (t) => {
    const draft = (await addChanges(s, author, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: true } })).body.id as number
    const before = await frozen(s, p, draft)
    expectError(t, await as(s, approver, 'DELETE', `${path}/${draft}`), { status: 403 }, 'someone else cannot discard it')
    t.same(await frozen(s, p, draft), before)
    expectStatus(t, await as(s, author, 'DELETE', `${path}/${draft}`), 200, 'the author discards it')
    expectError(t, await getRequest(s, p, draft), { status: 404 }, 'gone')
    t.notOk((await api(s, 'GET', path)).body.some((r: any) => r.id === draft), 'not listed')
  })
})

t.test('the pending listing: open requests (Draft, In review, Approved) touching the flag', async (t) => {
  const p = 'pending'
  const N = namesIn(p)
  await setUpProject(p, 1, [N.alpha, N.beta])
  const on = (f: string) => ({ feature: f, action: 'updateEnabled', payload: { enabled: true } })
  const draft = (await addChanges(s, author, p, 'production', on(N.alpha))).body.id as number
  const reviewId = (await addChanges(s, approver, p, 'production', [on(N.alpha), on(N.beta)])).body.id as number
  expectStatus(t, await setState(s, approver, p, reviewId, { state: 'In review' }), 200, 'second request to review')
  const approvedId = (await addChanges(s, second, p, 'production', on(N.alpha))).body.id as number
  expectStatus(t, await setState(s, second, p, approvedId, { state: 'In review' }), 200, 'third to review')
  expectStatus(t, await setState(s, approver, p, approvedId, { state: 'Approved' }), 200, 'third approved')
  const cancelledId = (await addChanges(s, admin, p, 'production', on(N.alpha))).body.id as number
  expectStatus(t, await setState(s, admin, p, cancelledId, { state: 'Cancelled' }), 200, 'fourth cancelled')

  const alpha = await api(s, 'GET', `${crPath(p)}/pending/${N.alpha}`)
  t.equal(alpha.status, 200)
  t.same(alpha.body.map((r: any) => r.id).sort(), [draft, reviewId, approvedId].sort(), 'Draft, In review and Approved; not Cancelled')
  for (const r of alpha.body) t.match(r, { project: p, environment: 'production', minApprovals: 1, features: Array, segments: Array, createdBy: Object, createdAt: String, state: /^(Draft|In review|Approved)$/ })
  const beta = await api(s, 'GET', `${crPath(p)}/pending/${N.beta}`)
  t.same(beta.body.map((r: any) => r.id), [reviewId], 'only the request that touches beta')
  t.same((await api(s, 'GET', `${crPath(p)}/pending/${N.gamma}`)).body, [], 'no request touches gamma')

  expectStatus(t, await setState(s, approver, p, approvedId, { state: 'Applied' }), 200, 'apply the third')
  t.notOk((await api(s, 'GET', `${crPath(p)}/pending/${N.alpha}`)).body.some((r: any) => r.id === approvedId), 'an Applied request is no longer pending')
  const alphaFeature = alpha.body.find((r: any) => r.id === draft).features[0]
  t.equal(alphaFeature.name, N.alpha)
  t.notOk('defaultChange' in alphaFeature, 'alpha has a strategy: no default change')

  expectOk(await createFeature(s, p, N.bare), 'a flag without strategies')
  const bare = await addChanges(s, author, p, 'production', on(N.bare))
  t.match(bare.body.features.find((f: any) => f.name === N.bare), {
    defaultChange: { action: 'addStrategy', payload: { name: 'flexibleRollout', parameters: { rollout: '100', groupId: N.bare } } },
  }, 'enabling a flag without strategies shows the strategy that will be added')
  t.same((await api(s, 'GET', `${crPath(p)}/pending/${N.bare}`)).body.map((r: any) => r.id), [draft], "the author's draft now touches it too")
})

t.test('every change action applies with its normal events and change-request-applied in one consecutive append', async (t) => {
  const p = 'acts'
  const N = namesIn(p)
  expectOk(await createProject(s, { id: p, name: p }), 'project')
  for (const f of [N.main, N.parent, N.child, N.orphan, N.old]) expectOk(await createFeature(s, p, f), `create ${f}`)
  const first = expectOk(await addStrategy(s, p, N.main, 'production', { name: 'default' }), 'strategy 1').body.id
  const second = expectOk(await addStrategy(s, p, N.main, 'production', { name: 'flexibleRollout' }), 'strategy 2').body.id
  expectOk(await api(s, 'POST', `/api/admin/projects/${p}/features/${N.orphan}/dependencies`, { feature: N.parent }), 'orphan depends on parent')
  const segment = expectOk(await createSegment(s, { name: 'beta-users', constraints: [] }), 'segment').body
  const unused = expectOk(await createSegment(s, { name: 'unused', constraints: [] }), 'another segment').body
  await setConfig(s, p, 'production', 1)

  const cases: { label: string; change: Record<string, unknown>; events: string[]; check: (t: Test) => Promise<void> }[] = [
    {
      label: 'updateEnabled',
      change: { feature: N.main, action: 'updateEnabled', payload: { enabled: true } },
      events: ['feature-environment-enabled'],
      check: async (t) => void t.equal((await featureEnv(s, p, N.main, 'production')).enabled, true),
    },
    {
      label: 'addStrategy',
      change: { feature: N.main, action: 'addStrategy', payload: { name: 'userWithId', parameters: { userIds: 'a,b' } } },
      events: ['feature-strategy-add'],
      check: async (t) => void t.ok((await featureEnv(s, p, N.main, 'production')).strategies.some((x: any) => x.name === 'userWithId')),
    },
    {
      label: 'updateStrategy',
      change: { feature: N.main, action: 'updateStrategy', payload: { id: first, name: 'default', parameters: {}, title: 'everyone' } },
      events: ['feature-strategy-update'],
      check: async (t) => void t.equal((await featureEnv(s, p, N.main, 'production')).strategies.find((x: any) => x.id === first).title, 'everyone'),
    },
    {
      label: 'reorderStrategy',
      change: { feature: N.main, action: 'reorderStrategy', payload: [{ id: second, sortOrder: 0 }, { id: first, sortOrder: 1 }] },
      events: ['strategy-order-changed'],
      check: async (t) => void t.equal((await featureEnv(s, p, N.main, 'production')).strategies[0].id, second),
    },
    {
      label: 'deleteStrategy',
      change: { feature: N.main, action: 'deleteStrategy', payload: { id: first } },
      events: ['feature-strategy-remove'],
      check: async (t) => void t.notOk((await featureEnv(s, p, N.main, 'production')).strategies.some((x: any) => x.id === first)),
    },
    {
      label: 'patchVariant',
      change: { feature: N.main, action: 'patchVariant', payload: { variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }] } },
      events: ['feature-environment-variants-updated'],
      check: async (t) => void t.same((await featureEnv(s, p, N.main, 'production')).variants.map((v: any) => v.name), ['blue']),
    },
    {
      label: 'addDependency',
      change: { feature: N.child, action: 'addDependency', payload: { feature: N.parent, enabled: true } },
      events: ['feature-dependency-added'],
      check: async (t) => void t.match((await api(s, 'GET', `/api/admin/projects/${p}/features/${N.child}`)).body.dependencies, [{ feature: N.parent, enabled: true }]),
    },
    {
      label: 'deleteDependency',
      change: { feature: N.orphan, action: 'deleteDependency', payload: { feature: N.parent } },
      events: ['feature-dependency-removed'],
      check: async (t) => void t.same((await api(s, 'GET', `/api/admin/projects/${p}/features/${N.orphan}`)).body.dependencies, []),
    },
    {
      label: 'archiveFeature',
      change: { feature: N.old, action: 'archiveFeature' },
      events: ['feature-archived'],
      // An archived flag is a 404 at its own path (as in Unleash 8.2); the archive lists it.
      check: async (t) => void t.ok((await api(s, 'GET', `/api/admin/archive/features/${p}`)).body.features.some((f: any) => f.name === N.old && f.archived)),
    },
    {
      label: 'updateSegment',
      change: { action: 'updateSegment', payload: { id: segment.id, name: 'beta-testers', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] } },
      events: ['segment-updated'],
      check: async (t) => void t.equal((await api(s, 'GET', `/api/admin/segments/${segment.id}`)).body.name, 'beta-testers'),
    },
    {
      label: 'deleteSegment',
      change: { action: 'deleteSegment', payload: { id: unused.id } },
      events: ['segment-deleted'],
      check: async (t) => void t.equal((await api(s, 'GET', `/api/admin/segments/${unused.id}`)).status, 404),
    },
  ]
  for (const c of cases) {
    await t.test(c.label, async (t) => {
      const id = await toApproved(t, p, c.change)
      const mark = await newestEventId(s)
      const res = await setState(s, approver, p, id, { state: 'Applied' })
      if (!expectStatus(t, res, 200, `apply ${c.label}`)) return
      const events = await eventsAfter(s, mark)
      t.same(events.map((e) => e.type), [...c.events, 'change-request-applied'], 'the normal events, then change-request-applied')
      t.same(events.map((e) => e.id), events.map((_, i) => mark + 1 + i), 'consecutive ids: one append')
      t.match(events[events.length - 1], { type: 'change-request-applied', project: p, environment: 'production', createdBy: 'approver@example.com', data: { changeRequestId: id } })
      await c.check(t)
      t.equal((await getRequest(s, p, id)).body.state, 'Applied')
    })
  }
})

t.test('a conflict at apply time: 400, nothing applied, the request stays Approved', async (t) => {
  const p = 'clash'
  const N = namesIn(p)
  const strategies = await setUpProject(p)
  const doomed = expectOk(await addStrategy(s, p, N.checkout, 'production', { name: 'flexibleRollout' }), 'a second strategy').body.id
  const created = await addChanges(s, author, p, 'production', [
    { feature: N.checkout, action: 'updateStrategy', payload: { id: strategies[N.checkout], name: 'default', parameters: {}, title: 'fine' } },
    { feature: N.checkout, action: 'updateStrategy', payload: { id: doomed, name: 'flexibleRollout', parameters: { rollout: '10' } } },
  ])
  const id = created.body.id as number
  t.notOk(created.body.features[0].changes.some((c: any) => c.conflict), 'no conflict yet')
  expectStatus(t, await api(s, 'DELETE', `/api/admin/projects/${p}/features/${N.checkout}/environments/production/strategies/${doomed}`), 200, 'an admin deletes the strategy directly')

  const shown = (await getRequest(s, p, id)).body
  t.notOk(shown.features[0].changes[0].conflict, 'the first change has no conflict')
  t.equal(shown.features[0].changes[1].conflict, 'The strategy has been deleted', 'the second change shows its conflict')

  expectStatus(t, await setState(s, author, p, id, { state: 'In review' }), 200, 'to review')
  expectStatus(t, await setState(s, approver, p, id, { state: 'Approved' }), 200, 'approved')
  const before = await frozen(s, p, id)
  const envBefore = await featureEnv(s, p, N.checkout, 'production')
  const res = await setState(s, approver, p, id, { state: 'Applied' })
  expectError(t, res, { status: 400, message: /conflict/ }, 'applying a conflicting request')
  t.match(res.body.message, /The strategy has been deleted/)
  t.same(await frozen(s, p, id), before, 'no event written, the request unchanged')
  t.equal((await getRequest(s, p, id)).body.state, 'Approved', 'still Approved')
  t.same(await featureEnv(s, p, N.checkout, 'production'), envBefore, 'not even the first change was applied')
  t.equal((await featureEnv(s, p, N.checkout, 'production')).strategies[0].title, null)
})

t.test('a failure at apply time that is not a conflict: nothing applied either', async (t) => {
  const p = 'atomic'
  const N = namesIn(p)
  await setUpProject(p, 1, [N.child, N.parent])
  const id = await toApproved(t, p, [
    { feature: N.child, action: 'updateEnabled', payload: { enabled: true } },
    { feature: N.child, action: 'addDependency', payload: { feature: N.parent } },
  ])
  t.notOk((await getRequest(s, p, id)).body.features.some((f: any) => f.conflict || f.changes.some((c: any) => c.conflict)), 'no conflict shown')
  expectStatus(t, await api(s, 'DELETE', `/api/admin/projects/${p}/features/${N.parent}`), 202, 'an admin archives the parent directly')
  t.notOk((await getRequest(s, p, id)).body.features.some((f: any) => f.conflict || f.changes.some((c: any) => c.conflict)), 'still no conflict: the parent is not a target')

  const before = await frozen(s, p, id)
  const res = await setState(s, approver, p, id, { state: 'Applied' })
  expectError(t, res, { status: 403, name: 'InvalidOperationError', message: `No active feature ${N.parent} exists` }, 'the dependency step fails as a direct write would')
  t.same(await frozen(s, p, id), before, 'no event written, the request unchanged')
  t.equal((await getRequest(s, p, id)).body.state, 'Approved', 'still Approved')
  t.match(await featureEnv(s, p, N.child, 'production'), { enabled: false }, 'the first change (enable) was not applied')
  t.same((await api(s, 'GET', `/api/admin/projects/${p}/features/${N.child}`)).body.dependencies, [])
})

t.test('scheduled application fires when its time comes', async (t) => {
  const p = 'timed'
  const N = namesIn(p)
  await setUpProject(p)
  const id = await toApproved(t, p, { feature: N.checkout, action: 'updateEnabled', payload: { enabled: true } })
  const before = await frozen(s, p, id)
  expectError(t, await setState(s, approver, p, id, { state: 'Scheduled', scheduledAt: new Date(Date.now() - 60_000).toISOString() }), { status: 400 }, 'a time in the past')
  expectError(t, await setState(s, approver, p, id, { state: 'Scheduled' }), { status: 400 }, 'no time')
  t.same(await frozen(s, p, id), before, 'refused schedules change nothing')

  const at = new Date(Date.now() + 2000).toISOString()
  const scheduled = await setState(s, approver, p, id, { state: 'Scheduled', scheduledAt: at })
  expectStatus(t, scheduled, 200, 'scheduled')
  t.match(scheduled.body, { state: 'Scheduled', schedule: { status: 'pending', scheduledAt: at } })
  t.equal((await featureEnv(s, p, N.checkout, 'production')).enabled, false, 'not yet')
  const mark = await newestEventId(s)

  const done = await eventually(async () => (await getRequest(s, p, id)).body.state === 'Applied', 20_000, 50)
  t.ok(done, 'applied by the scheduler')
  t.equal((await featureEnv(s, p, N.checkout, 'production')).enabled, true, 'the flag is on')
  const events = await eventsAfter(s, mark)
  t.same(events.map((e) => e.type), ['feature-environment-enabled', 'change-request-applied', 'change-request-scheduled-application-success'])
  t.same(events.map((e) => e.id), events.map((_, i) => mark + 1 + i), 'one append')
  t.ok(Date.parse(events[0].createdAt) >= Date.parse(at), 'not before its time')
})

t.test('a restart in the middle of a review; a schedule missed while the server was down fails', async (t) => {
  const dataDir = makeDataDir(t)
  const adminToken = randomAdminToken()
  const env = { SCHEDULER_INTERVAL_MS: '100' }
  let r = await startTestServer(t, { dataDir, adminToken, env })
  const p = 'restart'
  const N = namesIn(p)
  const who = await loggedIn(r, 'writer')
  const first = await withPat(r, await loggedIn(r, 'first'))
  const other = await withPat(r, await loggedIn(r, 'other'))
  expectOk(await createProject(r, { id: p, name: p }), 'project')
  expectOk(await createFeature(r, p, N.checkout), 'flag')
  expectOk(await addStrategy(r, p, N.checkout, 'production', { name: 'default' }), 'strategy')
  expectOk(await addStrategy(r, p, N.checkout, 'development', { name: 'default' }), 'strategy dev')
  await setConfig(r, p, 'production', 2)
  await setConfig(r, p, 'development', 1)

  // In review with one approval of two.
  const id = (await addChanges(r, who, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: true } })).body.id as number
  expectStatus(t, await as(r, who, 'PUT', `${crPath(p)}/${id}/title`, { title: 'survives' }), 204, 'title')
  expectStatus(t, await as(r, who, 'POST', `${crPath(p)}/${id}/comments`, { text: 'before the restart' }), 201, 'comment')
  expectStatus(t, await setState(r, who, p, id, { state: 'In review' }), 200, 'to review')
  expectStatus(t, await setState(r, first, p, id, { state: 'Approved' }), 200, 'first approval')

  // Scheduled shortly, but the server goes down before the time comes.
  const timed = (await addChanges(r, who, p, 'development', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: true } })).body.id as number
  expectStatus(t, await setState(r, who, p, timed, { state: 'In review' }), 200, 'timed to review')
  expectStatus(t, await setState(r, first, p, timed, { state: 'Approved' }), 200, 'timed approved')
  const due = Date.now() + 1500
  expectStatus(t, await setState(r, first, p, timed, { state: 'Scheduled', scheduledAt: new Date(due).toISOString() }), 200, 'timed scheduled')

  const before = (await getRequest(r, p, id)).body
  t.match((await getRequest(r, p, timed)).body, { state: 'Scheduled', schedule: { status: 'pending' } }, 'pending when the server goes down')
  await r.stop()
  await sleep(Math.max(0, due - Date.now()) + 200)
  r = await startTestServer(t, { dataDir, adminToken, env })

  // The scheduler's first round, right after the start, marks the missed schedule failed.
  const failed = await eventually(async () => (await getRequest(r, p, timed)).body.schedule?.status === 'failed', 20_000, 50)
  t.ok(failed, 'the schedule missed while down is marked failed')
  const timedView = (await getRequest(r, p, timed)).body
  t.match(timedView, { state: 'Scheduled', schedule: { status: 'failed', failureReason: String } })
  t.equal((await featureEnv(r, p, N.checkout, 'development')).enabled, false, 'the missed schedule was not applied')
  const types = ((await listEvents(r)).body.events as any[]).map((e) => e.type)
  t.ok(types.includes('change-request-scheduled-application-failure'), 'the failure is an event')
  t.notOk(types.includes('change-request-scheduled-application-success'), 'no success')

  const after = await getRequest(r, p, id)
  t.equal(after.status, 200)
  t.same(after.body, before, 'the request in review is back as it was: state, approvals, title, comments, changes')
  t.match(after.body, { state: 'In review', title: 'survives', approvals: [{ createdBy: { username: 'first' } }], comments: [{ text: 'before the restart' }] })
  expectError(t, await as(r, who, 'POST', `/api/admin/projects/${p}/features/${N.checkout}/environments/production/on`), { status: 403, name: 'PermissionError' }, 'change requests are still required after the restart')
  expectError(t, await setState(r, first, p, id, { state: 'Approved' }), { status: 400, message: /already approved/ }, 'the approval survived: the same approver cannot approve again')
  await refusedTransition(t, r, p, id, () => setState(r, first, p, id, { state: 'Applied' }), 'In review', 'applied', 'still needs its second approval')

  // The review then completes.
  const second = await setState(r, other, p, id, { state: 'Approved' })
  expectStatus(t, second, 200, 'the second approver after the restart')
  t.equal(second.body.state, 'Approved')
  expectStatus(t, await setState(r, other, p, id, { state: 'Applied' }), 200, 'applied')
  t.equal((await featureEnv(r, p, N.checkout, 'production')).enabled, true, 'on in production')
  const newId = (await addChanges(r, who, p, 'production', { feature: N.checkout, action: 'updateEnabled', payload: { enabled: false } })).body.id
  t.ok(newId > timed, 'new requests after a restart get fresh ids')

  // And once more: a completed request comes back Applied.
  await r.stop()
  r = await startTestServer(t, { dataDir, adminToken, env })
  t.match((await getRequest(r, p, id)).body, { state: 'Applied', approvals: [{ createdBy: { username: 'first' } }, { createdBy: { username: 'other' } }] })
})

import t from 'tap'
import type { ApiResult, Body } from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import {
  adminTokenCaller,
  adminTokenName,
  callAs,
  createPerson,
  defaultAdminPassword,
  isoInDays,
  latestEvents,
  login,
  patCaller,
  permissionMessage,
  sessionCaller,
  sessionCookieName,
  sessionOf,
  startPeopleServer,
  strongPassword,
  Transcript,
  type Caller,
  type ListedEvent,
  type Person,
} from '../helpers/people.js'

// Users, logins and sessions, PATs, service accounts, search, roles, groups and project access over
// HTTP (INTERFACE 2.16-2.19, 4.18, 4.20; SEMANTICS 7, 13). Every reply is kept in a transcript that
// the last test scans for password hashes, PAT secrets and session ids.

let server = await startPeopleServer(t)
const transcript = new Transcript()
const admin = adminTokenCaller(server)
const tokenName = await adminTokenName(server)

const call = async <T = any>(caller: Caller, method: string, path: string, body?: Body): Promise<ApiResult<T>> => {
  const res = await callAs<T>(server, caller, method, path, body)
  transcript.record(`${caller.label}: ${method} ${path} → ${res.status}`, res)
  return res
}
const asAdmin = <T = any>(method: string, path: string, body?: Body) => call<T>(admin, method, path, body)

const events = async (): Promise<ListedEvent[]> => {
  const res = await asAdmin('GET', '/api/admin/events')
  return res.body.events
}
const newest = async (type: string, match: (e: ListedEvent) => boolean = () => true) => (await events()).find((e) => e.type === type && match(e))

const loginAs = async (username: string, password: string) => {
  const res = await login(server, username, password)
  transcript.record(`login ${username} → ${res.status}`, res)
  return res
}

// Secrets handed out during the run: each may appear only where it was created.
const patSecrets: string[] = []
const sessionIds: string[] = []
const createPatAs = async (caller: Caller, description: string, expiresAt = isoInDays(30), path = '/api/admin/user/tokens') => {
  const res = await callAs(server, caller, 'POST', path, { description, expiresAt })
  const secret = typeof res.body?.secret === 'string' ? (res.body.secret as string) : undefined
  transcript.record(`${caller.label}: POST ${path} → ${res.status}`, res, secret ? [secret] : [])
  if (secret) patSecrets.push(secret)
  return { res, secret, id: res.body?.id as number }
}
const person = async (username: string, rootRole: number | string, email?: string): Promise<Person> => {
  const p = await createPerson(server, { username, rootRole, email })
  sessionIds.push(p.session.session!)
  return p
}

t.afterEach(async () => {
  // The newest events after each test go into the transcript too.
  await asAdmin('GET', '/api/admin/events')
})

const userFields = ['id', 'name', 'email', 'username', 'imageUrl', 'loginAttempts', 'emailSent', 'rootRole', 'seenAt', 'createdAt', 'accountType']

t.test('the default admin logs in with a session cookie that is HttpOnly and SameSite', async (t) => {
  const res = await loginAs('admin', defaultAdminPassword)
  expectStatus(t, res, 200, 'login as admin')
  const cookies = res.headers.getSetCookie()
  const cookie = cookies.find((c) => c.startsWith(`${sessionCookieName}=`))
  t.ok(cookie, 'sets the unleash-session cookie')
  t.match(cookie, /;\s*HttpOnly/i, 'HttpOnly')
  t.match(cookie, /;\s*SameSite=(Lax|Strict)/i, 'SameSite')
  t.match(cookie, /;\s*Path=\//i, 'for the whole site')
  const session = sessionOf(res)!
  sessionIds.push(session)
  t.equal(res.body.username, 'admin')
  t.equal(res.body.rootRole, 1, 'the default admin is an Admin')
  t.notOk('passwordHash' in res.body, 'the login reply carries no password hash')
  const me = await call(sessionCaller('admin', session), 'GET', '/api/admin/user')
  expectStatus(t, me, 200, 'GET /api/admin/user with the cookie')
  t.equal(me.body.user.username, 'admin')
  t.ok(me.body.permissions.some((p: { permission: string }) => p.permission === 'ADMIN'), 'the admin holds ADMIN')
})

t.test('user CRUD', async (t) => {
  let alice = 0
  t.test('create with rootRole by name answers 201 with the user', async (t) => {
    const res = await asAdmin('POST', '/api/admin/user-admin', { email: 'alice@example.com', name: 'Alice', rootRole: 'Editor' })
    expectStatus(t, res, 201, 'create alice')
    for (const field of userFields) t.ok(field in res.body, `the user has ${field}`)
    t.match(res.body, { email: 'alice@example.com', name: 'Alice', rootRole: 2, accountType: 'User', emailSent: false, loginAttempts: 0 })
    t.type(res.body.inviteLink, 'string', 'with an invite link')
    t.notOk('passwordHash' in res.body)
    alice = res.body.id
    const event = await newest('user-created', (e) => e.data?.id === alice)
    t.ok(event, 'user-created is recorded')
    t.same(event?.data, { id: alice, name: 'Alice', username: null, email: 'alice@example.com', rootRole: 2 }, 'with the public fields only')
    t.equal(event?.createdBy, tokenName, 'by the admin token, named')
    t.equal(event?.createdByUserId, -42, 'admin token writes carry user id -42')
  })

  t.test('create with rootRole by id', async (t) => {
    const res = await asAdmin('POST', '/api/admin/user-admin', { username: 'bob', rootRole: 3 })
    expectStatus(t, res, 201, 'create bob')
    t.match(res.body, { username: 'bob', rootRole: 3 })
  })

  t.test('a duplicate username or email is 400 User already exists, whatever the case', async (t) => {
    for (const body of [{ username: 'BOB', rootRole: 3 }, { email: 'Alice@Example.com', rootRole: 3 }]) {
      const res = await asAdmin('POST', '/api/admin/user-admin', body)
      expectError(t, res, { status: 400, name: 'BadDataError', message: /User already exists/ }, JSON.stringify(body))
    }
  })

  t.test('neither username nor email is 400', async (t) => {
    const res = await asAdmin('POST', '/api/admin/user-admin', { name: 'Nobody', rootRole: 3 })
    expectError(t, res, { status: 400, message: /You must specify username or email/ })
  })

  t.test('an unknown root role, or a project role as root role, is 400', async (t) => {
    for (const rootRole of ['NoSuchRole', 4, 999]) {
      const res = await asAdmin('POST', '/api/admin/user-admin', { username: `r-${rootRole}`, rootRole })
      expectError(t, res, { status: 400 }, `rootRole ${rootRole}`)
    }
  })

  t.test('a weak password is 400 OwaspValidationError and nothing is created', async (t) => {
    for (const password of ['short1!A', 'alllowercase1!', 'NoDigitsHere!!x', 'NoSpecial123abc', 'Aaaa111!!!bbb']) {
      const res = await asAdmin('POST', '/api/admin/user-admin', { username: 'weakling', rootRole: 3, password })
      expectError(t, res, { status: 400, name: 'OwaspValidationError' }, password)
    }
    const list = await asAdmin('GET', '/api/admin/user-admin')
    t.notOk(list.body.users.some((u: { username: string }) => u.username === 'weakling'), 'no user was created')
  })

  t.test('list and get', async (t) => {
    const list = await asAdmin('GET', '/api/admin/user-admin')
    expectStatus(t, list, 200, 'list users')
    t.ok(Array.isArray(list.body.users), '{users}')
    t.ok(list.body.users.some((u: { id: number }) => u.id === alice), 'alice is listed')
    t.same(list.body.rootRoles.map((r: { name: string }) => r.name).sort(), ['Admin', 'Editor', 'Viewer'], '{rootRoles}')
    const one = await asAdmin('GET', `/api/admin/user-admin/${alice}`)
    expectStatus(t, one, 200, 'get alice')
    t.equal(one.body.email, 'alice@example.com')
    expectError(t, await asAdmin('GET', '/api/admin/user-admin/99999'), { status: 404, name: 'NotFoundError' }, 'an unknown id')
  })

  t.test('update name and root role', async (t) => {
    const res = await asAdmin('PUT', `/api/admin/user-admin/${alice}`, { name: 'Alice A', rootRole: 'Viewer' })
    expectStatus(t, res, 200, 'update alice')
    t.match(res.body, { name: 'Alice A', rootRole: 3 })
    const event = await newest('user-updated', (e) => e.data?.id === alice)
    t.match(event, { data: { name: 'Alice A', rootRole: 3 }, preData: { name: 'Alice', rootRole: 2 } }, 'user-updated with new and old')
    const clash = await asAdmin('PUT', `/api/admin/user-admin/${alice}`, { username: 'Bob' })
    expectError(t, clash, { status: 400, message: /User already exists/ }, "taking bob's username")
  })

  t.test('delete ends the user and their sessions', async (t) => {
    const doomed = await person('doomed', 'Editor')
    expectStatus(t, await call(doomed.session, 'GET', '/api/admin/user'), 200, 'the session works before')
    expectStatus(t, await asAdmin('DELETE', `/api/admin/user-admin/${doomed.id}`), 200, 'delete')
    expectError(t, await asAdmin('GET', `/api/admin/user-admin/${doomed.id}`), { status: 404 }, 'gone')
    expectError(t, await call(doomed.session, 'GET', '/api/admin/user'), { status: 401 }, 'the old session is refused')
    const relogin = await loginAs('doomed', doomed.password)
    expectError(t, relogin, { status: 401 }, 'a deleted user cannot log in')
    const event = await newest('user-deleted', (e) => e.preData?.id === doomed.id)
    t.match(event, { preData: { id: doomed.id, username: 'doomed' } }, 'user-deleted with the old user as preData')
    const again = await asAdmin('POST', '/api/admin/user-admin', { username: 'doomed', rootRole: 3 })
    expectStatus(t, again, 201, 'the name is free again')
  })
})

t.test('passwords', async (t) => {
  const carol = await person('carol', 'Viewer')
  const p2 = strongPassword('second')
  const p3 = strongPassword('third')

  t.test('an admin sets a password; the old one stops working', async (t) => {
    expectStatus(t, await asAdmin('POST', `/api/admin/user-admin/${carol.id}/change-password`, { password: p2 }), 200, 'set password')
    expectError(t, await loginAs('carol', carol.password), { status: 401, name: 'PasswordMismatch' }, 'old password')
    expectStatus(t, await loginAs('carol', p2), 200, 'new password')
    const weak = await asAdmin('POST', `/api/admin/user-admin/${carol.id}/change-password`, { password: 'weak' })
    expectError(t, weak, { status: 400, name: 'OwaspValidationError' }, 'a weak password')
    const event = await newest('user-updated', (e) => e.data?.id === carol.id)
    t.ok(event, 'the change is an event')
    t.notMatch(JSON.stringify(event), /scrypt|passwordHash/, 'without the hash')
  })

  t.test('a user changes their own password', async (t) => {
    const session = sessionOf(await loginAs('carol', p2))!
    sessionIds.push(session)
    const me = sessionCaller('carol', session)
    const mismatch = await call(me, 'POST', '/api/admin/user/change-password', { password: p3, confirmPassword: `${p3}x` })
    expectError(t, mismatch, { status: 400 }, 'confirmPassword differs')
    expectStatus(t, await call(me, 'POST', '/api/admin/user/change-password', { password: p3, confirmPassword: p3 }), 200, 'change')
    expectStatus(t, await loginAs('carol', p3), 200, 'log in with it')
    expectError(t, await loginAs('carol', p2), { status: 401 }, 'not with the previous one')
  })

  t.test('validate-password answers 200 or 400 OwaspValidationError', async (t) => {
    expectStatus(t, await call(carol.session, 'POST', '/api/admin/user-admin/validate-password', { password: p3 }), 200, 'a strong one')
    expectError(t, await call(carol.session, 'POST', '/api/admin/user-admin/validate-password', { password: 'password' }), {
      status: 400,
      name: 'OwaspValidationError',
    })
  })
})

t.test('login and session', async (t) => {
  const dan = await person('dan', 'Editor', 'Dan.Smith@Example.com')

  t.test('by username or by email, case-insensitively', async (t) => {
    for (const name of ['dan', 'Dan.Smith@Example.com', 'dan.smith@example.com']) {
      const res = await loginAs(name, dan.password)
      expectStatus(t, res, 200, `login as ${name}`)
      t.equal(res.body.id, dan.id)
      const session = sessionOf(res)
      t.ok(session, 'a session cookie')
      if (session) sessionIds.push(session)
    }
  })

  t.test('a wrong password is 401 and counted; a good login resets the count and sets seenAt', async (t) => {
    for (let i = 0; i < 2; i++) expectError(t, await loginAs('dan', 'Wr0ng-Password!'), { status: 401, name: 'PasswordMismatch' }, `attempt ${i + 1}`)
    const counted = await asAdmin('GET', `/api/admin/user-admin/${dan.id}`)
    t.equal(counted.body.loginAttempts, 2, 'two failed attempts')
    const unknown = await loginAs('nobody-here', 'Wr0ng-Password!')
    expectError(t, unknown, { status: 401, name: 'PasswordMismatch' }, 'an unknown user looks the same')
    t.equal(unknown.headers.getSetCookie().length, 0, 'no cookie on failure')
    expectStatus(t, await loginAs('dan', dan.password), 200, 'good login')
    const reset = await asAdmin('GET', `/api/admin/user-admin/${dan.id}`)
    t.equal(reset.body.loginAttempts, 0, 'reset')
    t.type(reset.body.seenAt, 'string', 'seenAt is set')
  })

  t.test('no credential is 401 AuthenticationRequired; an unknown cookie is 401', async (t) => {
    expectError(t, await call({ label: 'nobody' }, 'GET', '/api/admin/user'), { status: 401, name: 'AuthenticationRequired' })
    expectError(t, await call(sessionCaller('forged', 'not-a-session'), 'GET', '/api/admin/user'), { status: 401, name: 'UnauthorizedError' })
  })

  t.test('a session cookie does not open the client API', async (t) => {
    const res = await call(dan.session, 'GET', '/api/client/features')
    expectStatus(t, res, 401, 'client API with only a cookie')
  })

  t.test('logout ends the session', async (t) => {
    const session = sessionOf(await loginAs('dan', dan.password))!
    sessionIds.push(session)
    const me = sessionCaller('dan', session)
    expectStatus(t, await call(me, 'GET', '/api/admin/user'), 200, 'works before')
    const out = await call(me, 'POST', '/logout')
    expectStatus(t, out, 200, 'logout')
    t.ok(out.headers.getSetCookie().some((c) => c.startsWith(`${sessionCookieName}=;`) && /Max-Age=0/i.test(c)), 'the cookie is cleared')
    expectError(t, await call(me, 'GET', '/api/admin/user'), { status: 401 }, 'refused after logout')
    expectStatus(t, await call(dan.session, 'GET', '/api/admin/user'), 200, 'other sessions of the user live on')
  })
})

t.test('GET /api/admin/user lists the caller and their permissions', async (t) => {
  const editor = await person('erin', 'Editor')
  const viewer = await person('victor', 'Viewer')
  const names = (res: ApiResult) => res.body.permissions.filter((p: { project?: string }) => !p.project).map((p: { permission: string }) => p.permission)
  const ed = await call(editor.session, 'GET', '/api/admin/user')
  t.match(ed.body.user, { id: editor.id, username: 'erin', rootRole: 2 })
  t.notOk('passwordHash' in ed.body.user)
  t.ok(names(ed).includes('CREATE_PROJECT'), 'an editor may create projects')
  t.ok(names(ed).includes('UPDATE_FEATURE'), 'and update flags')
  t.notOk(names(ed).includes('ADMIN'), 'but is no admin')
  const vi = await call(viewer.session, 'GET', '/api/admin/user')
  t.same(names(vi), [], 'a viewer holds no root permission')
  expectStatus(t, await asAdmin('POST', '/api/admin/projects', { id: 'perm-p', name: 'Perm P' }), 201, 'project')
  expectStatus(t, await asAdmin('POST', '/api/admin/projects/perm-p/access', { roles: [5], users: [viewer.id] }), 200, 'make victor a member')
  const member = await call(viewer.session, 'GET', '/api/admin/user')
  const inProject = member.body.permissions.filter((p: { project?: string }) => p.project === 'perm-p').map((p: { permission: string }) => p.permission)
  t.ok(inProject.includes('CREATE_FEATURE') && inProject.includes('UPDATE_FEATURE_ENVIRONMENT'), 'a member holds flag permissions in the project')
  t.notOk(inProject.includes('UPDATE_PROJECT'), 'not project settings')
  const api = await asAdmin('GET', '/api/admin/user')
  expectStatus(t, api, 200, 'the admin token')
  t.ok(api.body.permissions.some((p: { permission: string }) => p.permission === 'ADMIN'))
})

t.test('personal access tokens', async (t) => {
  const pat = await person('patty', 'Editor', 'patty@example.com')
  let first = { id: 0, secret: '' }

  t.test('create shows the secret once', async (t) => {
    const created = await createPatAs(pat.session, 'ci', isoInDays(30))
    expectStatus(t, created.res, 201, 'create')
    t.match(created.secret, /^user:[0-9a-f]{56}$/, 'a user: secret of 56 hex')
    t.match(created.res.body, { description: 'ci', userId: pat.id })
    first = { id: created.id, secret: created.secret! }
    const list = await call(pat.session, 'GET', '/api/admin/user/tokens')
    expectStatus(t, list, 200, 'list')
    t.equal(list.body.pats.length, 1)
    t.match(list.body.pats[0], { id: first.id, description: 'ci' })
    t.notOk('secret' in list.body.pats[0], 'the list has no secret')
    t.notOk(list.text.includes(first.secret), 'nor anything that holds it')
    const event = await newest('pat-created', (e) => e.data?.id === first.id)
    t.ok(event, 'pat-created')
    t.equal(event?.createdBy, 'patty@example.com')
    t.equal(event?.createdByUserId, pat.id)
  })

  t.test('the PAT acts as its user, and writes record the user', async (t) => {
    const as = patCaller('patty PAT', first.secret)
    const me = await call(as, 'GET', '/api/admin/user')
    expectStatus(t, me, 200, 'GET /api/admin/user with the PAT')
    t.equal(me.body.user.id, pat.id)
    const bearer = await call(patCaller('patty bearer', `Bearer ${first.secret}`), 'GET', '/api/admin/user')
    t.equal(bearer.body?.user?.id, pat.id, 'also as a Bearer token')
    expectStatus(t, await call(as, 'POST', '/api/admin/projects/default/features', { name: 'pat-made' }), 201, 'create a flag')
    const event = await newest('feature-created', (e) => e.featureName === 'pat-made')
    t.equal(event?.createdBy, 'patty@example.com', 'createdBy is the user')
    t.equal(event?.createdByUserId, pat.id, 'createdByUserId is the user')
    expectError(t, await call(as, 'GET', '/api/client/features'), { status: 403 }, 'a PAT is the wrong kind for the client API')
  })

  t.test('a session write records the same user', async (t) => {
    expectStatus(t, await call(pat.session, 'POST', '/api/admin/projects/default/features', { name: 'session-made' }), 201, 'create')
    const event = await newest('feature-created', (e) => e.featureName === 'session-made')
    t.equal(event?.createdBy, 'patty@example.com')
    t.equal(event?.createdByUserId, pat.id)
  })

  t.test('refusals: duplicate description 409, past expiry 400, empty description 400, an API token 400', async (t) => {
    expectError(t, (await createPatAs(pat.session, 'ci')).res, { status: 409, name: 'NameExistsError' }, 'duplicate')
    expectError(t, (await createPatAs(pat.session, 'old', isoInDays(-1))).res, { status: 400 }, 'past expiry')
    expectError(t, (await createPatAs(pat.session, '  ')).res, { status: 400 }, 'empty description')
    expectError(t, (await createPatAs(admin, 'token')).res, { status: 400 }, 'the admin token has no user to own a PAT')
  })

  t.test('ids are not reused after a delete', async (t) => {
    const temp = await createPatAs(pat.session, 'short-lived')
    expectStatus(t, await call(pat.session, 'DELETE', `/api/admin/user/tokens/${temp.id}`), 200, 'delete')
    const next = await createPatAs(pat.session, 'next')
    t.ok(next.id > temp.id, `a new id (${next.id} after ${temp.id})`)
    expectStatus(t, await call(pat.session, 'DELETE', `/api/admin/user/tokens/${temp.id}`), 200, 'deleting the old id again')
    expectStatus(t, await call(patCaller('patty next', next.secret!), 'GET', '/api/admin/user'), 200, 'leaves the new PAT alone')
    expectStatus(t, await call(pat.session, 'DELETE', `/api/admin/user/tokens/${next.id}`), 200, 'clean up')
  })

  t.test('more than 10 is 403', async (t) => {
    for (let i = 2; i <= 10; i++) expectStatus(t, (await createPatAs(pat.session, `pat-${i}`)).res, 201, `PAT ${i}`)
    const eleventh = await createPatAs(pat.session, 'pat-11')
    expectError(t, eleventh.res, { status: 403 }, 'the 11th')
    const list = await call(pat.session, 'GET', '/api/admin/user/tokens')
    t.equal(list.body.pats.length, 10, 'still 10')
  })

  t.test('another user cannot delete it', async (t) => {
    const other = await person('mallory', 'Admin')
    await call(other.session, 'DELETE', `/api/admin/user/tokens/${first.id}`)
    expectStatus(t, await call(patCaller('patty PAT', first.secret), 'GET', '/api/admin/user'), 200, 'the PAT still works')
  })

  t.test('delete: refused on the very next request', async (t) => {
    expectStatus(t, await call(pat.session, 'DELETE', `/api/admin/user/tokens/${first.id}`), 200, 'delete')
    expectError(t, await call(patCaller('patty PAT', first.secret), 'GET', '/api/admin/user'), { status: 401 }, 'the next request')
    const event = await newest('pat-deleted', (e) => e.preData?.id === first.id)
    t.match(event, { preData: { id: first.id, description: 'ci' }, createdBy: 'patty@example.com', createdByUserId: pat.id }, 'pat-deleted')
    const list = await call(pat.session, 'GET', '/api/admin/user/tokens')
    t.equal(list.body.pats.length, 9, 'one fewer')
  })

  t.test('a deleted user’s PATs stop working', async (t) => {
    const temp = await person('temp', 'Editor')
    const created = await createPatAs(temp.session, 'temp')
    expectStatus(t, await call(patCaller('temp PAT', created.secret!), 'GET', '/api/admin/user'), 200, 'works')
    await asAdmin('DELETE', `/api/admin/user-admin/${temp.id}`)
    expectError(t, await call(patCaller('temp PAT', created.secret!), 'GET', '/api/admin/user'), { status: 401 }, 'refused')
  })
})

t.test('service accounts and their tokens', async (t) => {
  const created = await asAdmin('POST', '/api/admin/service-account', { username: 'ci-bot', name: 'CI bot', rootRole: 'Editor' })
  expectStatus(t, created, 201, 'create')
  t.match(created.body, { username: 'ci-bot', name: 'CI bot', rootRole: 2, accountType: 'Service Account', tokens: [] })
  const id = created.body.id as number
  t.ok(await newest('service-account-created', (e) => e.data?.id === id), 'service-account-created')
  expectError(t, await asAdmin('POST', '/api/admin/service-account', { username: 'ci-bot', rootRole: 3 }), { status: 400 }, 'a duplicate username')

  const token = await createPatAs(admin, 'deploy', isoInDays(30), `/api/admin/service-account/${id}/token`)
  expectStatus(t, token.res, 201, 'create a token')
  t.match(token.secret, /^user:/)
  const listed = await asAdmin('GET', '/api/admin/service-account')
  expectStatus(t, listed, 200, 'list')
  const account = listed.body.serviceAccounts.find((a: { id: number }) => a.id === id)
  t.match(account?.tokens, [{ id: token.id, description: 'deploy' }], 'the token is listed')
  t.notOk(listed.text.includes(token.secret!), 'without its secret')
  const users = await asAdmin('GET', '/api/admin/user-admin')
  t.notOk(users.body.users.some((u: { id: number }) => u.id === id), 'service accounts are not users')

  const bot = patCaller('ci-bot token', token.secret!)
  expectStatus(t, await call(bot, 'POST', '/api/admin/projects/default/features', { name: 'bot-made' }), 201, 'the token writes as the account')
  const event = await newest('feature-created', (e) => e.featureName === 'bot-made')
  t.equal(event?.createdBy, 'ci-bot', 'named by its username')
  t.equal(event?.createdByUserId, id)
  expectError(t, await call(bot, 'POST', '/api/admin/user-admin', { username: 'x', rootRole: 3 }), { status: 403, name: 'PermissionError' }, 'with its root role')
  expectError(t, await loginAs('ci-bot', strongPassword('x')), { status: 401 }, 'a service account cannot log in')

  expectStatus(t, await asAdmin('PUT', `/api/admin/service-account/${id}`, { name: 'CI', rootRole: 'Viewer' }), 200, 'update')
  expectError(t, await call(bot, 'POST', '/api/admin/projects/default/features', { name: 'bot-made-2' }), { status: 403 }, 'now a viewer')
  expectStatus(t, await asAdmin('DELETE', `/api/admin/service-account/${id}/token/${token.id}`), 200, 'delete the token')
  expectError(t, await call(bot, 'GET', '/api/admin/user'), { status: 401 }, 'refused on the next request')
  expectStatus(t, await asAdmin('DELETE', `/api/admin/service-account/${id}`), 200, 'delete the account')
  t.ok(await newest('service-account-deleted', (e) => e.preData?.id === id), 'service-account-deleted')
})

t.test('search', async (t) => {
  await asAdmin('POST', '/api/admin/user-admin', { username: 'zq', email: 'zoe.quinn@example.com', name: 'Zoe Quinn', rootRole: 3 })
  await asAdmin('POST', '/api/admin/user-admin', { username: 'asmith', email: 'adam@smith.org', name: 'Adam Smith', rootRole: 3 })
  const gone = await asAdmin('POST', '/api/admin/user-admin', { username: 'zed-gone', email: 'zed@example.com', name: 'Zed', rootRole: 3 })
  await asAdmin('DELETE', `/api/admin/user-admin/${gone.body.id}`)
  const search = (q?: string) => asAdmin('GET', `/api/admin/user-admin/search${q === undefined ? '' : `?q=${encodeURIComponent(q)}`}`)
  const found = (res: ApiResult) => res.body.users.map((u: { username: string }) => u.username).sort()

  for (const q of [undefined, '', 'z']) {
    const short = await search(q)
    expectStatus(t, short, 200, `q=${JSON.stringify(q)}`)
    t.same(short.body.users, [], `q=${JSON.stringify(q)}: under 2 characters finds no one (SEMANTICS 13)`)
  }
  expectError(t, await search('x'.repeat(256)), { status: 400 }, 'a query over 255 characters')
  const res = await search('ZOE')
  expectStatus(t, res, 200, 'search')
  t.same(Object.keys(res.body).sort(), ['rootRoles', 'users'], '{users, rootRoles}')
  t.same(res.body.rootRoles.map((r: { id: number }) => r.id).sort(), [1, 2, 3])
  for (const field of userFields) t.ok(field in (res.body.users[0] ?? {}), `a found user has ${field}`)
  t.same(found(res), ['zq'], 'name and email start, any case')
  t.same(found(await search('quinn')), ['zq'], 'name contains')
  t.same(found(await search('ASM')), ['asmith'], 'username starts with')
  t.same(found(await search('adam@')), ['asmith'], 'email starts with')
  t.same(found(await search('smith.org')), [], 'an email matches only from its start (SEMANTICS 13)')
  t.same(found(await search('zed')), [], 'deleted users are not found')
})

t.test('roles', async (t) => {
  const list = await asAdmin('GET', '/api/admin/roles')
  expectStatus(t, list, 200, 'list')
  const byId = new Map(list.body.roles.map((r: { id: number }) => [r.id, r]))
  t.match(byId.get(1), { name: 'Admin', type: 'root' })
  t.match(byId.get(2), { name: 'Editor', type: 'root' })
  t.match(byId.get(3), { name: 'Viewer', type: 'root' })
  t.match(byId.get(4), { name: 'Owner', type: 'project' })
  t.match(byId.get(5), { name: 'Member', type: 'project' })
  t.match((await asAdmin('GET', '/api/admin/roles/4')).body, { id: 4, name: 'Owner' })

  expectStatus(t, await asAdmin('POST', '/api/admin/projects', { id: 'roles-p', name: 'Roles' }), 201, 'project')
  expectStatus(t, await asAdmin('POST', '/api/admin/projects/roles-p/features', { name: 'r-flag' }), 201, 'flag')
  for (const env of ['development', 'production']) {
    expectStatus(t, await asAdmin('POST', `/api/admin/projects/roles-p/features/r-flag/environments/${env}/strategies`, { name: 'default' }), 200, `strategy in ${env}`)
  }

  const flipper = await asAdmin('POST', '/api/admin/roles', {
    name: 'Dev Flipper',
    description: 'turns flags on in development',
    type: 'custom',
    permissions: [{ name: 'UPDATE_FEATURE_ENVIRONMENT', environment: 'development' }],
  })
  expectStatus(t, flipper, 201, 'a custom project role')
  t.match(flipper.body, { name: 'Dev Flipper', type: 'custom', permissions: [{ name: 'UPDATE_FEATURE_ENVIRONMENT', environment: 'development' }] })
  t.ok(await newest('role-created', (e) => e.data?.id === flipper.body.id), 'role-created')
  const keeper = await asAdmin('POST', '/api/admin/roles', { name: 'Segment Keeper', type: 'root-custom', permissions: [{ name: 'CREATE_SEGMENT' }] })
  expectStatus(t, keeper, 201, 'a custom root role')
  expectError(t, await asAdmin('POST', '/api/admin/roles', { name: 'segment keeper', type: 'custom' }), { status: 409 }, 'a duplicate name')
  expectError(t, await asAdmin('PUT', '/api/admin/roles/1', { name: 'Boss', type: 'root-custom' }), { status: 403 }, 'a predefined role cannot change')
  expectError(t, await asAdmin('DELETE', '/api/admin/roles/3'), { status: 403 }, 'nor be deleted')

  t.test('a custom root role grants what it names', async (t) => {
    const sk = await person('sk', 'Segment Keeper')
    const me = await call(sk.session, 'GET', '/api/admin/user')
    t.equal(me.body.user.rootRole, keeper.body.id, 'created with the role by name')
    expectStatus(t, await call(sk.session, 'POST', '/api/admin/segments', { name: 'sk-seg', constraints: [] }), 201, 'may create a segment')
    const project = await call(sk.session, 'POST', '/api/admin/projects', { id: 'sk-p', name: 'SK' })
    expectError(t, project, { status: 403, name: 'PermissionError', message: permissionMessage(['CREATE_PROJECT']) }, 'not a project')
  })

  t.test('a custom project role grants in its project and environment only', async (t) => {
    const flip = await person('flip', 'Viewer')
    expectStatus(t, await asAdmin('POST', '/api/admin/projects/roles-p/access', { roles: [flipper.body.id], users: [flip.id] }), 200, 'grant')
    const on = (env: string, project = 'roles-p') => call(flip.session, 'POST', `/api/admin/projects/${project}/features/r-flag/environments/${env}/on`)
    expectStatus(t, await on('development'), 200, 'on in development')
    expectError(t, await on('production'), { status: 403, name: 'PermissionError', message: permissionMessage(['UPDATE_FEATURE_ENVIRONMENT'], 'production') }, 'not in production')
    expectError(t, await call(flip.session, 'PUT', '/api/admin/projects/roles-p/features/r-flag', { description: 'x' }), { status: 403 }, 'nor anything else')

    t.test('a role in use cannot be deleted', async (t) => {
      const inUse = await asAdmin('DELETE', `/api/admin/roles/${flipper.body.id}`)
      expectError(t, inUse, { status: 400, message: /in use|RoleInUse/i }, 'the project role, held in roles-p')
      const rootInUse = await asAdmin('DELETE', `/api/admin/roles/${keeper.body.id}`)
      expectError(t, rootInUse, { status: 400, message: /in use|RoleInUse/i }, 'the root role, held by sk')
      expectStatus(t, await asAdmin('DELETE', `/api/admin/projects/roles-p/users/${flip.id}/roles`), 200, 'take it away')
      expectStatus(t, await asAdmin('DELETE', `/api/admin/roles/${flipper.body.id}`), 200, 'now it can go')
      t.ok(await newest('role-deleted', (e) => e.preData?.id === flipper.body.id), 'role-deleted')
      expectError(t, await asAdmin('GET', `/api/admin/roles/${flipper.body.id}`), { status: 404 }, 'gone')
    })
  })
})

t.test('groups', async (t) => {
  const gina = await person('gina', 'Viewer')
  const hank = await person('hank', 'Viewer')
  const created = await asAdmin('POST', '/api/admin/groups', { name: 'Team A', description: 'the A team', users: [{ user: { id: gina.id } }] })
  expectStatus(t, created, 201, 'create')
  const id = created.body.id as number
  t.match(created.body, { id, name: 'Team A', description: 'the A team', rootRole: null, users: [{ user: { id: gina.id, username: 'gina' } }] })
  t.type(created.body.users[0].joinedAt, 'string')
  const event = await newest('group-created', (e) => e.data?.id === id)
  t.match(event?.data, { id, name: 'Team A', users: [gina.id] }, 'group-created lists member ids')
  expectError(t, await asAdmin('POST', '/api/admin/groups', { name: 'Team A' }), { status: 409, message: /Group name already exists/ }, 'a duplicate name')
  expectError(t, await asAdmin('POST', '/api/admin/groups', { description: 'no name' }), { status: 400 }, 'no name')
  expectError(t, await asAdmin('POST', '/api/admin/groups', { name: 'Ghosts', users: [{ user: { id: 99999 } }] }), { status: 400 }, 'an unknown user')

  const updated = await asAdmin('PUT', `/api/admin/groups/${id}`, { name: 'Team A', description: 'now two', rootRole: 2, users: [{ user: { id: gina.id } }, { user: { id: hank.id } }] })
  expectStatus(t, updated, 200, 'update')
  t.same(updated.body.users.map((u: { user: { id: number } }) => u.user.id).sort(), [gina.id, hank.id].sort())
  t.equal(updated.body.users.find((u: { user: { id: number } }) => u.user.id === gina.id).joinedAt, created.body.users[0].joinedAt, 'a member keeps joinedAt')
  t.match(await newest('group-updated', (e) => e.data?.id === id), { data: { users: [gina.id, hank.id], rootRole: 2 }, preData: { users: [gina.id] } })
  expectStatus(t, await call(hank.session, 'POST', '/api/admin/segments', { name: 'via-group', constraints: [] }), 201, "the group's root role counts for its members")

  const all = await asAdmin('GET', '/api/admin/groups')
  t.ok(all.body.groups.some((g: { id: number }) => g.id === id), 'listed')
  t.match((await asAdmin('GET', `/api/admin/groups/${id}`)).body, { id, name: 'Team A', userCount: 2 })
  const other = await asAdmin('POST', '/api/admin/groups', { name: 'Team B' })
  expectError(t, await asAdmin('PUT', `/api/admin/groups/${other.body.id}`, { name: 'Team A' }), { status: 409 }, 'renaming onto a taken name')
  expectError(t, await call(gina.session, 'POST', '/api/admin/groups', { name: 'Mine' }), { status: 403, message: permissionMessage(['ADMIN']) }, 'viewers cannot')

  expectStatus(t, await asAdmin('DELETE', `/api/admin/groups/${other.body.id}`), 200, 'delete')
  expectError(t, await asAdmin('GET', `/api/admin/groups/${other.body.id}`), { status: 404 }, 'gone')
  t.ok(await newest('group-deleted', (e) => e.preData?.id === other.body.id), 'group-deleted')

  t.test("a deleted group's id is not reused, so a new group inherits none of its project roles", async (t) => {
    const ivy = await person('ivy', 'Viewer')
    const jay = await person('jay', 'Viewer')
    expectStatus(t, await asAdmin('POST', '/api/admin/projects', { id: 'grp-p', name: 'Groups' }), 201, 'project')
    const owners = await asAdmin('POST', '/api/admin/groups', { name: 'Owners', users: [{ user: { id: ivy.id } }] })
    expectStatus(t, await asAdmin('POST', '/api/admin/projects/grp-p/access', { roles: [4], groups: [owners.body.id] }), 200, 'owners own grp-p')
    expectStatus(t, await call(ivy.session, 'POST', '/api/admin/projects/grp-p/features', { name: 'grp-flag' }), 201, 'a member of the group writes')
    expectStatus(t, await asAdmin('DELETE', `/api/admin/groups/${owners.body.id}`), 200, 'delete the group')
    expectError(t, await call(ivy.session, 'POST', '/api/admin/projects/grp-p/features', { name: 'grp-flag-2' }), { status: 403 }, 'its former members lose the role')
    const fresh = await asAdmin('POST', '/api/admin/groups', { name: 'Newcomers', users: [{ user: { id: jay.id } }] })
    expectStatus(t, fresh, 201, 'a new group')
    t.not(fresh.body.id, owners.body.id, 'gets a new id')
    expectError(t, await call(jay.session, 'POST', '/api/admin/projects/grp-p/features', { name: 'grp-flag-3' }), { status: 403 }, 'and no roles in grp-p')
    const access = await asAdmin('GET', '/api/admin/projects/grp-p/access')
    t.same(access.body.groups, [], 'grp-p lists no group')
  })
})

t.test('project access', async (t) => {
  const owner = await person('olive', 'Editor')
  const member = await person('mike', 'Viewer')
  const grouped = await person('gus', 'Viewer')
  const group = await asAdmin('POST', '/api/admin/groups', { name: 'Access Crew', users: [{ user: { id: grouped.id } }] })
  const groupId = group.body.id as number
  expectStatus(t, await call(owner.session, 'POST', '/api/admin/projects', { id: 'acc', name: 'Access' }), 201, 'an editor creates a project')

  const access = async () => (await asAdmin('GET', '/api/admin/projects/acc/access')).body
  const first = await access()
  t.same(Object.keys(first).sort(), ['groups', 'roles', 'users'], 'shape of INTERFACE 2.19')
  t.match(first.users, [{ id: owner.id, roleId: 4, roles: [4] }], 'the creator is the owner')
  t.ok(first.roles.every((r: { type: string }) => r.type === 'project' || r.type === 'custom'), 'only project roles are offered')
  t.ok(first.roles.some((r: { id: number }) => r.id === 5), 'Member among them')

  const viewerGrant = await call(member.session, 'POST', '/api/admin/projects/acc/access', { roles: [5], users: [member.id] })
  expectError(t, viewerGrant, { status: 403, name: 'PermissionError', message: permissionMessage(['UPDATE_PROJECT', 'PROJECT_USER_ACCESS_WRITE']) }, 'a viewer cannot grant')

  expectStatus(t, await call(owner.session, 'POST', '/api/admin/projects/acc/access', { roles: [5], users: [member.id], groups: [groupId] }), 200, 'the owner grants Member')
  const added = await newest('project-access-added', (e) => e.project === 'acc')
  t.same(added?.data, { roles: [{ roleId: 5, groupIds: [groupId], userIds: [member.id] }] }, 'project-access-added')
  t.equal(added?.createdBy, 'olive@example.com')
  t.equal(added?.createdByUserId, owner.id)

  const granted = await access()
  const mikeRow = granted.users.find((u: { id: number }) => u.id === member.id)
  t.match(mikeRow, { id: member.id, name: 'mike', email: 'mike@example.com', roleId: 5, roles: [5] })
  t.equal(mikeRow?.addedAt, added?.createdAt, 'addedAt is when the user was given access to the project, not when the account was made')
  t.type(mikeRow?.imageUrl, 'string')
  const groupRow = granted.groups.find((g: { id: number }) => g.id === groupId)
  t.match(groupRow, { id: groupId, name: 'Access Crew', roleId: 5, roles: [5], mappingsSSO: [], rootRole: null, users: [{ user: { id: grouped.id } }] })
  for (const field of ['addedAt', 'description', 'createdBy', 'createdAt']) t.ok(field in (groupRow ?? {}), `a group row has ${field}`)
  t.equal(groupRow?.addedAt, added?.createdAt, 'and for a group, when the group was')

  expectStatus(t, await call(member.session, 'POST', '/api/admin/projects/acc/features', { name: 'acc-by-member' }), 201, 'a member creates flags')
  expectStatus(t, await call(grouped.session, 'POST', '/api/admin/projects/acc/features', { name: 'acc-by-group' }), 201, 'so does a member through a group')
  expectError(t, await call(member.session, 'POST', '/api/admin/projects/default/features', { name: 'acc-elsewhere' }), {
    status: 403,
    name: 'PermissionError',
    message: permissionMessage(['CREATE_FEATURE']),
  }, 'but not in another project')

  expectStatus(t, await call(owner.session, 'PUT', `/api/admin/projects/acc/users/${member.id}/roles`, { roles: [4] }), 200, 'make mike an owner')
  t.match(await newest('project-access-user-roles-updated', (e) => e.project === 'acc'), {
    data: { roles: [4], userId: member.id },
    preData: { roles: [5], userId: member.id },
  })
  expectStatus(t, await call(owner.session, 'PUT', `/api/admin/projects/acc/groups/${groupId}/roles`, { roles: [4, 5] }), 200, 'group roles')
  t.match(await newest('project-access-group-roles-updated', (e) => e.project === 'acc'), { data: { roles: [4, 5], groupId }, preData: { roles: [5], groupId } })
  t.match((await access()).groups.find((g: { id: number }) => g.id === groupId), { roles: [4, 5] })

  expectError(t, await asAdmin('PUT', `/api/admin/projects/acc/users/${member.id}/roles`, { roles: [1] }), { status: 400 }, 'a root role is no project role')
  expectError(t, await asAdmin('POST', '/api/admin/projects/acc/access', { roles: [5], users: [99999] }), { status: 400 }, 'an unknown user')
  expectError(t, await asAdmin('POST', '/api/admin/projects/acc/access', { roles: [5], groups: [99999] }), { status: 400 }, 'an unknown group')

  expectStatus(t, await call(owner.session, 'DELETE', `/api/admin/projects/acc/users/${member.id}/roles`), 200, 'remove mike')
  t.match(await newest('project-access-user-roles-deleted', (e) => e.project === 'acc'), { preData: { roles: [4], userId: member.id } })
  expectStatus(t, await call(owner.session, 'DELETE', `/api/admin/projects/acc/groups/${groupId}/roles`), 200, 'remove the group')
  t.match(await newest('project-access-group-roles-deleted', (e) => e.project === 'acc'), { preData: { roles: [4, 5], groupId } })
  const after = await access()
  t.notOk(after.users.some((u: { id: number }) => u.id === member.id), 'mike is gone')
  t.same(after.groups, [], 'the group is gone')
  expectError(t, await call(member.session, 'POST', '/api/admin/projects/acc/features', { name: 'acc-late' }), { status: 403 }, 'mike may no longer write')
  expectError(t, await asAdmin('GET', '/api/admin/projects/nope/access'), { status: 404 }, 'an unknown project')
})

t.test('a restart keeps users, sessions, PATs and API tokens', async (t) => {
  const keeper = await person('keeper', 'Editor')
  const pat = await createPatAs(keeper.session, 'survives')
  const apiToken = await asAdmin('POST', '/api/admin/api-tokens', { tokenName: 'survivor', type: 'backend', environment: 'development', projects: ['*'] })
  expectStatus(t, apiToken, 201, 'an API token')
  const group = await asAdmin('POST', '/api/admin/groups', { name: 'Survivors', users: [{ user: { id: keeper.id } }] })
  const role = await asAdmin('POST', '/api/admin/roles', { name: 'Survivor Role', type: 'custom', permissions: [{ name: 'UPDATE_FEATURE' }] })

  server = await server.restart()
  t.pass('restarted on the same data dir')

  const me = await call(keeper.session, 'GET', '/api/admin/user')
  expectStatus(t, me, 200, 'the old session cookie still works')
  t.equal(me.body.user.id, keeper.id)
  const byPat = await call(patCaller('keeper PAT', pat.secret!), 'GET', '/api/admin/user')
  expectStatus(t, byPat, 200, 'the PAT still works')
  t.equal(byPat.body.user.id, keeper.id)
  expectStatus(t, await call(patCaller('survivor', apiToken.body.secret), 'GET', '/api/client/features'), 200, 'the API token still works')
  expectStatus(t, await loginAs('keeper', keeper.password), 200, 'the password still works')
  const users = await asAdmin('GET', '/api/admin/user-admin')
  t.ok(users.body.users.some((u: { id: number; username: string }) => u.id === keeper.id && u.username === 'keeper'), 'the user is there')
  t.match((await asAdmin('GET', `/api/admin/groups/${group.body.id}`)).body, { name: 'Survivors', users: [{ user: { id: keeper.id } }] }, 'groups')
  t.match((await asAdmin('GET', `/api/admin/roles/${role.body.id}`)).body, { name: 'Survivor Role' }, 'roles')
  const pats = await call(keeper.session, 'GET', '/api/admin/user/tokens')
  t.match(pats.body.pats, [{ id: pat.id, description: 'survives' }], 'the PAT is listed')
  expectStatus(t, await call(keeper.session, 'DELETE', `/api/admin/user/tokens/${pat.id}`), 200, 'and can be deleted')
  expectError(t, await call(patCaller('keeper PAT', pat.secret!), 'GET', '/api/admin/user'), { status: 401 }, 'then refused')
})

t.test('nothing secret appears in any reply or event', async (t) => {
  // Every event the server holds, page by project plus the newest 100.
  await asAdmin('GET', '/api/admin/events')
  for (const project of ['default', 'acc', 'roles-p', 'perm-p']) await asAdmin('GET', `/api/admin/events?project=${project}`)
  const listed = await latestEvents(server)
  t.ok(listed.some((e) => e.type === 'user-created'), 'the scan covers user events')
  t.ok(transcript.size > 100, `${transcript.size} replies recorded`)
  t.same(transcript.holding('scrypt$'), [], 'no password hash')
  t.same(transcript.holding('passwordHash'), [], 'no passwordHash field')
  t.same(transcript.holding('secretHash'), [], 'no PAT secret hash')
  t.ok(patSecrets.length >= 12, `${patSecrets.length} PAT secrets checked`)
  for (const secret of patSecrets) t.same(transcript.holding(secret), [], `PAT ${secret.slice(0, 9)}… only in its creation reply`)
  t.ok(sessionIds.length >= 10, `${sessionIds.length} session ids checked`)
  for (const id of sessionIds) t.same(transcript.holding(id), [], `session ${id.slice(0, 6)}… in no body`)
})

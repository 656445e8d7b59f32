import t from 'tap'
import { api, request, type ApiResult } from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import {
  adminTokenName,
  callAs,
  createPerson,
  isoInDays,
  latestEvents,
  login,
  permissionMessage,
  startPeopleServer,
  strongPassword,
} from '../helpers/people.js'

// Public signup tokens (INTERFACE 2.18, 4.16, 4.19; SEMANTICS 13): invite links an admin hands out, and
// the signup they allow. The server's clock is moved forward to let a token expire.

const dayMs = 24 * 3600 * 1000
let offsetMs = 0
const now = () => new Date(Date.now() + offsetMs)
let server = await startPeopleServer(t, { env: { UNLEASH_URL: 'https://unleash.example.com/' }, clock: now })
const tokenName = await adminTokenName(server)
const replies: ApiResult[] = []
const asAdmin = async (method: string, path: string, body?: unknown) => {
  const res = await api(server, method, path, body)
  replies.push(res)
  return res
}
const anonymous = async (method: string, path: string, body?: unknown) => {
  const res = await request(server, { method, path, body, token: null })
  replies.push(res)
  return res
}

const base = '/api/admin/invite-link/tokens'
const createToken = (body: Record<string, unknown>) => asAdmin('POST', base, body)
const getToken = (secret: string) => asAdmin('GET', `${base}/${secret}`)
const updateToken = (secret: string, body: unknown) => asAdmin('PUT', `${base}/${secret}`, body)
const validate = (secret: string) => anonymous('GET', `/invite/${secret}/validate`)
const signup = (secret: string, body: Record<string, unknown>) => anonymous('POST', `/invite/${secret}/signup`, body)
const newcomer = (name: string) => ({ email: `${name}@example.com`, name: `${name} Newcomer`, password: strongPassword(name) })

const tokenFields = ['secret', 'url', 'name', 'enabled', 'expiresAt', 'createdAt', 'createdBy', 'users', 'role']

let welcome = ''

t.test('create', async (t) => {
  const expiresAt = isoInDays(7)
  const res = await createToken({ name: 'Welcome', expiresAt })
  expectStatus(t, res, 201, 'create')
  welcome = res.body.secret
  t.match(welcome, /^[0-9a-f]{32}$/, 'a secret of 32 hex')
  t.equal(res.headers.get('location'), `tokens/${welcome}`, 'Location: tokens/<secret>')
  for (const field of tokenFields) t.ok(field in res.body, `has ${field}`)
  t.equal(res.body.url, `https://unleash.example.com/new-user?invite=${welcome}`, 'url from UNLEASH_URL')
  t.match(res.body, { name: 'Welcome', enabled: true, expiresAt: new Date(expiresAt).toISOString(), createdBy: tokenName, users: [] })
  t.match(res.body.role, { id: 3, name: 'Viewer', type: 'root' }, 'Viewer by default')
  t.type(res.body.createdAt, 'string')
  const event = (await latestEvents(server)).find((e) => e.type === 'public-signup-token-created')
  t.match(event, { createdBy: tokenName, createdByUserId: -42, data: { secret: welcome, name: 'Welcome' } }, 'public-signup-token-created')

  const editors = await createToken({ name: 'Editors', expiresAt, role: 'Editor' })
  expectStatus(t, editors, 201, 'with a role by name')
  t.match(editors.body.role, { id: 2, name: 'Editor' })

  const far = await createToken({ name: 'Far', expiresAt: isoInDays(365) })
  expectStatus(t, far, 201, 'a year ahead')
  const life = Date.parse(far.body.expiresAt) - now().getTime()
  t.ok(life <= 31 * dayMs + 60_000 && life > 27 * dayMs, 'is capped at about a month')

  for (const [what, body] of [
    ['a past expiry', { name: 'Old', expiresAt: isoInDays(-1) }],
    ['no name', { expiresAt }],
    ['an empty name', { name: ' ', expiresAt }],
    ['no expiry', { name: 'Forever' }],
    ['an unknown role', { name: 'Nope', expiresAt, role: 'Overlord' }],
    ['a project role', { name: 'Owners', expiresAt, role: 4 }],
  ] as const) {
    expectError(t, await createToken(body), { status: 400 }, what)
  }
})

t.test('list, get, and who may', async (t) => {
  const list = await asAdmin('GET', base)
  expectStatus(t, list, 200, 'list')
  t.same(Object.keys(list.body), ['tokens'], '{tokens}')
  const listed = list.body.tokens.find((tk: { secret: string }) => tk.secret === welcome)
  for (const field of tokenFields) t.ok(field in (listed ?? {}), `a listed token has ${field}`)
  t.ok(list.body.tokens.length >= 3, 'all of them')
  const one = await getToken(welcome)
  expectStatus(t, one, 200, 'get')
  t.same(one.body, listed, 'the same as listed')
  expectError(t, await getToken('0'.repeat(32)), { status: 404, name: 'NotFoundError' }, 'an unknown secret')

  for (const rootRole of ['Viewer', 'Editor']) {
    const who = await createPerson(server, { username: `st-${rootRole.toLowerCase()}`, rootRole })
    for (const [method, path, body] of [
      ['GET', base, undefined],
      ['POST', base, { name: 'Mine', expiresAt: isoInDays(3) }],
      ['GET', `${base}/${welcome}`, undefined],
      ['PUT', `${base}/${welcome}`, { enabled: false }],
    ] as const) {
      const res = await callAs(server, who.session, method, path, body)
      expectError(t, res, { status: 403, name: 'PermissionError', message: permissionMessage(['ADMIN']) }, `${rootRole}: ${method} ${path}`)
    }
  }
  t.equal((await getToken(welcome)).body.enabled, true, 'nothing changed')
})

t.test('update', async (t) => {
  expectError(t, await updateToken(welcome, {}), { status: 400 }, 'neither expiresAt nor enabled')
  expectError(t, await updateToken(welcome, { enabled: 'no' }), { status: 400 }, 'enabled must be a boolean')
  expectError(t, await updateToken('0'.repeat(32), { enabled: false }), { status: 404 }, 'an unknown secret')
  const off = await updateToken(welcome, { enabled: false })
  expectStatus(t, off, 200, 'disable')
  t.match(off.body, { secret: welcome, enabled: false, name: 'Welcome' }, 'answers the token')
  const event = (await latestEvents(server)).find((e) => e.type === 'public-signup-token-updated')
  t.match(event, { data: { secret: welcome, enabled: false }, preData: { secret: welcome, enabled: true }, createdBy: tokenName })
  const expiresAt = isoInDays(10)
  const moved = await updateToken(welcome, { expiresAt, enabled: true })
  expectStatus(t, moved, 200, 'enable and move the expiry')
  t.match(moved.body, { enabled: true, expiresAt: new Date(expiresAt).toISOString() })
  t.equal((await getToken(welcome)).body.expiresAt, new Date(expiresAt).toISOString(), 'kept')
})

t.test('validate', async (t) => {
  expectStatus(t, await validate(welcome), 200, 'a valid token')
  expectError(t, await validate('0'.repeat(32)), { status: 400 }, 'an unknown token')
})

t.test('signup with a valid token', async (t) => {
  const body = { ...newcomer('nina'), username: 'nina' }
  const res = await signup(welcome, body)
  expectStatus(t, res, 201, 'signup')
  t.match(res.body, { email: 'nina@example.com', name: 'nina Newcomer', username: 'nina', rootRole: 3, accountType: 'User' }, "the user, with the token's role")
  t.notOk('passwordHash' in res.body)
  const id = res.body.id as number
  const token = await getToken(welcome)
  t.match(token.body.users, [{ id, email: 'nina@example.com' }], "listed in the token's users")
  const events = await latestEvents(server)
  const created = events.find((e) => e.type === 'user-created' && e.data?.id === id)
  const added = events.find((e) => e.type === 'public-signup-token-user-added')
  t.match(created, { data: { id, email: 'nina@example.com', rootRole: 3 } }, 'user-created')
  t.match(added, { data: { secret: welcome, userId: id } }, 'public-signup-token-user-added')
  t.ok(created && added && added.id > created.id, 'the user first, then the token use')
  t.equal(added?.createdBy, 'unleash_system_user', 'made by the system user')
  const loggedIn = await login(server, 'nina@example.com', body.password)
  expectStatus(t, loggedIn, 200, 'the newcomer logs in with the password')
  t.equal(loggedIn.body.id, id)

  const editors = (await asAdmin('GET', base)).body.tokens.find((tk: { name: string }) => tk.name === 'Editors')
  const editor = await signup(editors.secret, newcomer('otto'))
  expectStatus(t, editor, 201, 'signup with the Editor token')
  t.equal(editor.body.rootRole, 2, 'becomes an Editor')

  expectError(t, await signup(welcome, { ...newcomer('weak'), password: 'weakpass' }), { status: 400, name: 'OwaspValidationError' }, 'a weak password')
  expectError(t, await signup(welcome, newcomer('nina')), { status: 400, message: /User already exists/ }, 'a taken email')
  expectError(t, await signup(welcome, { ...newcomer('bad'), email: 'not-an-email' }), { status: 400 }, 'a bad email')
  expectError(t, await signup(welcome, { email: 'x@example.com', password: strongPassword('x') }), { status: 400 }, 'no name')
  const users = (await asAdmin('GET', '/api/admin/user-admin')).body.users.map((u: { email: string }) => u.email)
  t.notOk(users.includes('weak@example.com') || users.includes('x@example.com'), 'refused signups create no user')
  t.equal((await getToken(welcome)).body.users.length, 1, 'and are not counted as token users')
})

t.test('signup with a disabled token is 400', async (t) => {
  expectStatus(t, await updateToken(welcome, { enabled: false }), 200, 'disable')
  expectError(t, await validate(welcome), { status: 400 }, 'validate')
  expectError(t, await signup(welcome, newcomer('dora')), { status: 400 }, 'signup')
  const users = (await asAdmin('GET', '/api/admin/user-admin')).body.users
  t.notOk(users.some((u: { email: string }) => u.email === 'dora@example.com'), 'no user')
  expectStatus(t, await updateToken(welcome, { enabled: true }), 200, 'enable again')
  expectStatus(t, await signup(welcome, newcomer('dora')), 201, 'now it works')
})

t.test('signup with an expired token is 400, and the token reads enabled:false', async (t) => {
  const short = await createToken({ name: 'Short', expiresAt: isoInDays(2, now().getTime()) })
  const secret = short.body.secret as string
  expectStatus(t, await validate(secret), 200, 'valid at first')
  offsetMs += 3 * dayMs
  t.teardown(() => {
    offsetMs -= 3 * dayMs
  })
  expectError(t, await validate(secret), { status: 400 }, 'validate after expiry')
  expectError(t, await signup(secret, newcomer('late')), { status: 400 }, 'signup after expiry')
  t.equal((await getToken(secret)).body.enabled, false, 'GET: enabled is false once expired')
  const listed = (await asAdmin('GET', base)).body.tokens.find((tk: { secret: string }) => tk.secret === secret)
  t.equal(listed?.enabled, false, 'the list agrees')

  const pastDated = await createToken({ name: 'Past dated', expiresAt: isoInDays(5, now().getTime()) })
  const updated = await updateToken(pastDated.body.secret, { expiresAt: isoInDays(-1, now().getTime()) })
  expectStatus(t, updated, 200, 'an expiry moved into the past')
  t.equal(updated.body.enabled, false, 'reads enabled:false')
  expectError(t, await signup(pastDated.body.secret, newcomer('later')), { status: 400 }, 'and refuses signups')
  const revived = await updateToken(pastDated.body.secret, { expiresAt: isoInDays(3, now().getTime()) })
  t.equal(revived.body.enabled, true, 'a new expiry brings it back')
  expectStatus(t, await signup(pastDated.body.secret, newcomer('latest')), 201, 'and it lets people in')
})

t.test('a restart keeps the tokens and their users', async (t) => {
  const before = (await getToken(welcome)).body
  server = await server.restart()
  const after = await getToken(welcome)
  expectStatus(t, after, 200, 'still there')
  t.same(after.body, before, 'unchanged')
  expectStatus(t, await validate(welcome), 200, 'still valid')
})

t.test('no password hash in any reply', async (t) => {
  t.ok(replies.length > 50, `${replies.length} replies`)
  t.same(replies.filter((r) => r.text.includes('scrypt$') || r.text.includes('passwordHash')).map((r) => r.text.slice(0, 100)), [])
  const events = await api(server, 'GET', '/api/admin/events')
  t.notMatch(events.text, /scrypt\$|passwordHash/, 'nor in the events')
})

import t from 'tap'
import * as v from 'valibot'
import { recordOfType, type CommandMeta, type EventDraft } from '../../src/domain/events.js'
import { decideAccess, emptyAccess, evolveAccess, type AccessCommand } from '../../src/domain/project-access.js'
import { decidePeople, evolvePeople, isSignupTokenValid, maxPatsPerUser, type PeopleCommand } from '../../src/domain/people.js'
import { emptyPeople, roleIds, type PeopleState } from '../../src/domain/people-state.js'
import type { ProjectState } from '../../src/domain/project-state.js'
import { createUserSchema, groupSchema, roleSchema } from '../../src/schemas/people.js'
import { Scenario, assertError, errorOf, typesOf, valueOf } from './fixtures/scenario.js'

// decidePeople / evolvePeople and decideAccess / evolveAccess on plain objects: no actor, no disk, no HTTP.

const epoch = Date.parse('2024-01-01T00:00:00.000Z')
const at = (ms: number) => new Date(epoch + ms).toISOString()
const day = 24 * 3600 * 1000
const meta = (ms = 0, actor = { name: 'admin@example.com', userId: 1 }): CommandMeta => ({ now: at(ms), actor })

type Input<S extends v.GenericSchema> = v.InferInput<S>
const userInput = (input: Input<typeof createUserSchema>) => v.parse(createUserSchema, input)
const groupInput = (input: Input<typeof groupSchema>) => v.parse(groupSchema, input)
const roleInput = (input: Input<typeof roleSchema>) => v.parse(roleSchema, input)

// Decides against the state and, when decided, evolves it: what the instance machine does.
class People {
  state: PeopleState = emptyPeople()
  decide(command: PeopleCommand) {
    return decidePeople(this.state, command)
  }
  send(command: PeopleCommand) {
    const result = this.decide(command)
    if (result.ok) this.state = result.value.reduce(evolvePeople, this.state)
    return result
  }
  ok(command: PeopleCommand): EventDraft[] {
    return valueOf(this.send(command))
  }
  createUser(input: Input<typeof createUserSchema>, passwordHash: string | null = null, ms = 0): number {
    return recordOfType(this.ok({ type: 'user.create', input: userInput(input), passwordHash, meta: meta(ms) }), 'user-created').data.id
  }
  createGroup(input: Input<typeof groupSchema>): number {
    return recordOfType(this.ok({ type: 'group.create', input: groupInput(input), meta: meta() }), 'group-created').data.id
  }
  createPat(userId: number, description: string, expiresInMs = 30 * day, ms = 0) {
    return this.send({ type: 'pat.create', userId, description, expiresAt: at(ms + expiresInMs), secretHash: `hash-${description}`, meta: meta(ms) })
  }
}

t.test('users', async (t) => {
  t.test('create records the public fields; the hash travels hidden', async (t) => {
    const p = new People()
    const events = p.ok({ type: 'user.create', input: userInput({ email: 'ann@example.com', name: 'Ann', rootRole: 'editor' }), passwordHash: 'scrypt$x', meta: meta() })
    t.same(typesOf(events), ['user-created'])
    t.same(events[0].data, { id: 1, name: 'Ann', username: null, email: 'ann@example.com', rootRole: roleIds.editor }, 'role by name, any case')
    t.notMatch(JSON.stringify({ data: events[0].data, preData: events[0].preData }), /scrypt/, 'no hash in data')
    t.equal(recordOfType(events, 'user-created').hidden.passwordHash, 'scrypt$x')
    t.equal(events[0].createdBy, 'admin@example.com')
    t.equal(events[0].createdByUserId, 1)
    t.match(p.state.users.get(1), { id: 1, email: 'ann@example.com', accountType: 'User', deleted: false, passwordHash: 'scrypt$x' })
  })

  t.test('refusals', async (t) => {
    const p = new People()
    p.createUser({ username: 'ann', email: 'ann@example.com', rootRole: 3 })
    const create = (input: Input<typeof createUserSchema>) => errorOf(p.decide({ type: 'user.create', input: userInput(input), passwordHash: null, meta: meta() }))
    assertError(t, create({ username: 'ANN', rootRole: 3 }), 'BadDataError', 400, 'User already exists')
    assertError(t, create({ email: 'Ann@Example.com', rootRole: 3 }), 'BadDataError', 400, 'User already exists')
    assertError(t, create({ name: 'No One', rootRole: 3 }), 'BadDataError', 400, 'You must specify username or email')
    assertError(t, create({ username: 'x', rootRole: 'Overlord' }), 'BadDataError', 400)
    assertError(t, create({ username: 'x', rootRole: roleIds.owner }), 'BadDataError', 400)
  })

  t.test('update: a no-op records nothing; a change records new and old', async (t) => {
    const p = new People()
    const id = p.createUser({ username: 'ann', rootRole: 3 })
    const bob = p.createUser({ username: 'bob', rootRole: 3 })
    t.same(p.ok({ type: 'user.update', id, input: { name: undefined }, meta: meta() }), [])
    const [event] = p.ok({ type: 'user.update', id, input: { name: 'Ann', rootRole: 'Admin' }, meta: meta() })
    t.equal(event.type, 'user-updated')
    t.match(event, { data: { id, name: 'Ann', rootRole: 1 }, preData: { id, name: null, rootRole: 3 } })
    t.equal(p.state.users.get(id)?.rootRole, 1)
    assertError(t, errorOf(p.decide({ type: 'user.update', id: bob, input: { username: 'Ann' }, meta: meta() })), 'BadDataError', 400, 'User already exists')
    assertError(t, errorOf(p.decide({ type: 'user.update', id: 99, input: {}, meta: meta() })), 'NotFoundError', 404)
  })

  t.test('delete is soft: the user is marked, loses the hash and the PATs, and frees the name', async (t) => {
    const p = new People()
    const id = p.createUser({ username: 'ann', email: 'ann@example.com', rootRole: 3 }, 'scrypt$x')
    valueOf(p.createPat(id, 'ci'))
    const [event] = p.ok({ type: 'user.delete', id, meta: meta() })
    t.equal(event.type, 'user-deleted')
    t.match(event.preData, { id, username: 'ann' })
    t.match(p.state.users.get(id), { deleted: true, passwordHash: null })
    t.equal(p.state.pats.size, 0, 'PATs go with the user')
    assertError(t, errorOf(p.decide({ type: 'user.delete', id, meta: meta() })), 'NotFoundError', 404)
    t.equal(p.createUser({ username: 'ann', email: 'ann@example.com', rootRole: 3 }), id + 1, 'the name is free; the id is new')
  })

  t.test('setPassword replaces the hash through hidden data only', async (t) => {
    const p = new People()
    const id = p.createUser({ username: 'ann', rootRole: 3 }, 'scrypt$old')
    const [event] = p.ok({ type: 'user.setPassword', id, passwordHash: 'scrypt$new', meta: meta() })
    t.equal(event.type, 'user-updated')
    t.notMatch(JSON.stringify({ data: event.data, preData: event.preData }), /scrypt/)
    t.equal(p.state.users.get(id)?.passwordHash, 'scrypt$new')
    t.notOk('passwordChanged' in (p.state.users.get(id) ?? {}), 'the marker stays in the event')
  })

  t.test('service accounts are users of their own kind', async (t) => {
    const p = new People()
    const events = p.ok({ type: 'serviceAccount.create', input: { username: 'bot', rootRole: 2, name: 'Bot' }, meta: meta() })
    t.same(typesOf(events), ['service-account-created'])
    const id = recordOfType(events, 'service-account-created').data.id
    t.match(p.state.users.get(id), { accountType: 'Service Account', passwordHash: null })
    assertError(t, errorOf(p.decide({ type: 'user.update', id, input: { name: 'x' }, meta: meta() })), 'NotFoundError', 404, undefined)
    t.same(typesOf(p.ok({ type: 'serviceAccount.update', id, input: { name: 'Robot' }, meta: meta() })), ['service-account-updated'])
    t.same(typesOf(p.ok({ type: 'serviceAccount.delete', id, meta: meta() })), ['service-account-deleted'])
  })
})

t.test('roles', async (t) => {
  const p = new People()
  const [created] = p.ok({ type: 'role.create', input: roleInput({ name: 'Flipper', permissions: [{ name: 'UPDATE_FEATURE_ENVIRONMENT', environment: 'development' }] }), meta: meta() })
  t.equal(created.type, 'role-created')
  t.match(created.data, { id: 6, name: 'Flipper', type: 'custom', builtIn: false })
  t.ok(p.state.roles.has(6))
  assertError(t, errorOf(p.decide({ type: 'role.create', input: roleInput({ name: 'flipper' }), meta: meta() })), 'NameExistsError', 409)
  assertError(t, errorOf(p.decide({ type: 'role.update', id: roleIds.admin, input: roleInput({ name: 'Boss', type: 'root-custom' }), meta: meta() })), 'ForbiddenError', 403)
  assertError(t, errorOf(p.decide({ type: 'role.delete', id: roleIds.viewer, inUse: false, meta: meta() })), 'ForbiddenError', 403)
  assertError(t, errorOf(p.decide({ type: 'role.delete', id: 99, inUse: false, meta: meta() })), 'NotFoundError', 404)
  const [updated] = p.ok({ type: 'role.update', id: 6, input: roleInput({ name: 'Flipper 2' }), meta: meta() })
  t.match(updated, { data: { id: 6, name: 'Flipper 2' }, preData: { name: 'Flipper' } })

  const root = recordOfType(p.ok({ type: 'role.create', input: roleInput({ name: 'Keeper', type: 'root-custom', permissions: [{ name: 'CREATE_SEGMENT' }] }), meta: meta() }), 'role-created')
  p.createUser({ username: 'keeper', rootRole: 'Keeper' })
  const inUse = errorOf(p.decide({ type: 'role.delete', id: root.data.id, inUse: false, meta: meta() }))
  t.equal(inUse.kind, 'BadDataError', 'held by a user: refused')
  t.match(inUse.message, /in use|RoleInUse/i)
  t.equal(errorOf(p.decide({ type: 'role.delete', id: 6, inUse: true, meta: meta() })).kind, 'BadDataError', 'held in a project: refused')
  t.same(typesOf(p.ok({ type: 'role.delete', id: 6, inUse: false, meta: meta() })), ['role-deleted'])
  t.notOk(p.state.roles.has(6))
  const next = recordOfType(p.ok({ type: 'role.create', input: roleInput({ name: 'Later' }), meta: meta() }), 'role-created')
  t.ok(next.data.id > root.data.id, 'a deleted role id is not issued again')
})

t.test('groups', async (t) => {
  const p = new People()
  const ann = p.createUser({ username: 'ann', rootRole: 3 })
  const bob = p.createUser({ username: 'bob', rootRole: 3 })
  const [created] = p.ok({ type: 'group.create', input: groupInput({ name: 'Team', users: [{ user: { id: ann } }] }), meta: meta(0) })
  t.equal(created.type, 'group-created')
  t.match(created.data, { id: 1, name: 'Team', users: [ann], rootRole: null, createdBy: 'admin@example.com' })
  t.same(p.state.groups.get(1)?.users, [{ userId: ann, joinedAt: at(0), createdBy: 'admin@example.com' }])
  const create = (input: Input<typeof groupSchema>) => errorOf(p.decide({ type: 'group.create', input: groupInput(input), meta: meta() }))
  assertError(t, create({ name: 'Team' }), 'NameExistsError', 409, 'Group name already exists')
  assertError(t, create({ name: 'Ghosts', users: [{ user: { id: 99 } }] }), 'BadDataError', 400)
  assertError(t, create({ name: 'Bosses', rootRole: roleIds.owner }), 'BadDataError', 400)

  t.same(p.ok({ type: 'group.update', id: 1, input: groupInput({ name: 'Team', users: [{ user: { id: ann } }] }), meta: meta(5000) }), [], 'a no-op records nothing')
  const [updated] = p.ok({ type: 'group.update', id: 1, input: groupInput({ name: 'Team', rootRole: 2, users: [{ user: { id: ann } }, { user: { id: bob } }] }), meta: meta(5000) })
  t.match(updated, { type: 'group-updated', data: { users: [ann, bob], rootRole: 2 }, preData: { users: [ann] } })
  const members = p.state.groups.get(1)?.users ?? []
  t.equal(members.find((m) => m.userId === ann)?.joinedAt, at(0), 'a member keeps joinedAt')
  t.equal(members.find((m) => m.userId === bob)?.joinedAt, at(5000), 'a newcomer joins now')
  assertError(t, errorOf(p.decide({ type: 'group.update', id: 9, input: groupInput({ name: 'X' }), meta: meta() })), 'NotFoundError', 404)

  t.same(typesOf(p.ok({ type: 'group.delete', id: 1, meta: meta() })), ['group-deleted'])
  t.notOk(p.state.groups.has(1))
  t.equal(p.createGroup({ name: 'Next' }), 2, 'a deleted group id is not issued again')
})

t.test('personal access tokens', async (t) => {
  const p = new People()
  const ann = p.createUser({ username: 'ann', rootRole: 2 })
  const bob = p.createUser({ username: 'bob', rootRole: 2 })
  const created = recordOfType(valueOf(p.createPat(ann, 'ci')), 'pat-created')
  t.match(created.data, { id: 1, description: 'ci', userId: ann })
  t.notOk('secretHash' in created.data, 'the data has no hash')
  t.equal(created.hidden.secretHash, 'hash-ci')
  t.equal(p.state.pats.get(1)?.secretHash, 'hash-ci', 'the state keeps the hash')

  assertError(t, errorOf(p.createPat(ann, 'ci')), 'NameExistsError', 409)
  t.equal(errorOf(p.createPat(ann, 'old', -1)).kind, 'BadDataError', 'a past expiry')
  t.equal(errorOf(p.createPat(ann, 'now', 0)).kind, 'BadDataError', 'an expiry of now')
  valueOf(p.createPat(bob, 'ci'))
  for (let i = 2; i <= maxPatsPerUser; i++) valueOf(p.createPat(ann, `pat-${i}`))
  assertError(t, errorOf(p.createPat(ann, 'one too many')), 'OperationDeniedError', 403)
  valueOf(p.createPat(bob, 'bob-2'))

  t.same(p.ok({ type: 'pat.delete', userId: bob, id: 1, meta: meta() }), [], "deleting another user's PAT does nothing")
  t.ok(p.state.pats.has(1))
  const deleted = recordOfType(p.ok({ type: 'pat.delete', userId: ann, id: 1, meta: meta() }), 'pat-deleted')
  t.notOk('secretHash' in deleted.preData, 'preData has no hash')
  t.notOk(p.state.pats.has(1))
  const highest = Math.max(...p.state.pats.keys())
  const again = recordOfType(valueOf(p.createPat(ann, 'replacement')), 'pat-created')
  t.ok(again.data.id > highest, 'a deleted PAT id is not issued again')
  t.same(p.ok({ type: 'pat.delete', userId: ann, id: 1, meta: meta() }), [], 'deleting the old id again does nothing')
  t.ok(p.state.pats.has(again.data.id))
})

t.test('signup tokens', async (t) => {
  const token = (p: People, name: string, expiresInMs: number, role?: number | string, ms = 0) =>
    p.send({ type: 'signupToken.create', input: { name, expiresAt: at(ms + expiresInMs), role }, secret: `secret-${name}`, meta: meta(ms) })

  t.test('create: Viewer by default, capped at about a month', async (t) => {
    const p = new People()
    const event = recordOfType(valueOf(token(p, 'welcome', 7 * day)), 'public-signup-token-created')
    t.match(event.data, { secret: 'secret-welcome', name: 'welcome', enabled: true, roleId: roleIds.viewer, userIds: [], createdBy: 'admin@example.com', expiresAt: at(7 * day) })
    const far = recordOfType(valueOf(token(p, 'far', 365 * day)), 'public-signup-token-created')
    t.ok(Date.parse(far.data.expiresAt) <= epoch + 31 * day, 'capped')
    t.equal(recordOfType(valueOf(token(p, 'editors', day, 'Editor')), 'public-signup-token-created').data.roleId, roleIds.editor)
    t.equal(errorOf(token(p, 'past', -day)).kind, 'BadDataError')
    t.equal(errorOf(token(p, 'owner', day, roleIds.owner)).kind, 'BadDataError', 'a project role')
  })

  t.test('update needs expiresAt or enabled', async (t) => {
    const p = new People()
    valueOf(token(p, 'welcome', 7 * day))
    t.equal(errorOf(p.decide({ type: 'signupToken.update', secret: 'secret-welcome', input: {}, meta: meta() })).kind, 'BadDataError')
    t.equal(errorOf(p.decide({ type: 'signupToken.update', secret: 'nope', input: { enabled: false }, meta: meta() })).kind, 'NotFoundError')
    const [event] = p.ok({ type: 'signupToken.update', secret: 'secret-welcome', input: { enabled: false }, meta: meta() })
    t.match(event, { type: 'public-signup-token-updated', data: { secret: 'secret-welcome', enabled: false }, preData: { enabled: true } })
    t.equal(p.state.signupTokens.get('secret-welcome')?.enabled, false)
    p.ok({ type: 'signupToken.update', secret: 'secret-welcome', input: { expiresAt: at(2 * day) }, meta: meta() })
    t.match(p.state.signupTokens.get('secret-welcome'), { enabled: false, expiresAt: at(2 * day) })
  })

  t.test('signup: a valid token creates the user with its role; disabled or expired tokens refuse', async (t) => {
    const p = new People()
    valueOf(token(p, 'editors', 2 * day, 'Editor'))
    const signup = (ms: number, email: string) =>
      p.send({ type: 'signupToken.signup', secret: 'secret-editors', user: { email, name: 'N' }, passwordHash: 'scrypt$h', meta: meta(ms, { name: 'unleash_system_user', userId: -1337 }) })
    const events = valueOf(signup(1000, 'new@example.com'))
    t.same(typesOf(events), ['user-created', 'public-signup-token-user-added'])
    const id = recordOfType(events, 'user-created').data.id
    t.match(events[0].data, { email: 'new@example.com', rootRole: roleIds.editor })
    t.same(events[1].data, { secret: 'secret-editors', userId: id })
    t.same(p.state.signupTokens.get('secret-editors')?.userIds, [id])
    t.equal(p.state.users.get(id)?.passwordHash, 'scrypt$h')
    t.equal(errorOf(signup(1000, 'new@example.com')).kind, 'BadDataError', 'a taken email')
    t.equal(errorOf(signup(3 * day, 'late@example.com')).kind, 'BadDataError', 'after expiry')
    p.ok({ type: 'signupToken.update', secret: 'secret-editors', input: { enabled: false }, meta: meta() })
    t.equal(errorOf(signup(1000, 'off@example.com')).kind, 'BadDataError', 'disabled')
    t.equal(errorOf(p.decide({ type: 'signupToken.signup', secret: 'nope', user: { email: 'x@example.com', name: 'x' }, passwordHash: 'h', meta: meta() })).kind, 'BadDataError', 'unknown')
    t.same(p.state.signupTokens.get('secret-editors')?.userIds, [id], 'refusals add no user')
  })

  t.test('isSignupTokenValid: enabled and not yet expired', async (t) => {
    const tokenAt = { secret: 's', name: 'n', expiresAt: at(day), createdAt: at(0), createdBy: null, enabled: true, roleId: 3, userIds: [] }
    t.ok(isSignupTokenValid(tokenAt, at(0)))
    t.notOk(isSignupTokenValid(tokenAt, at(day)), 'expired at the instant')
    t.notOk(isSignupTokenValid({ ...tokenAt, enabled: false }, at(0)), 'disabled')
  })
})

t.test('project access', async (t) => {
  const s = new Scenario()
  s.createProject('web')
  const project = (): ProjectState => s.project('web')
  const p = new People()
  const ann = p.createUser({ username: 'ann', rootRole: 3 })
  const bob = p.createUser({ username: 'bob', rootRole: 3 })
  const team = p.createGroup({ name: 'Team', users: [{ user: { id: bob } }] })
  const decide = (command: AccessCommand) => decideAccess(project(), command, p.state, meta())
  const send = (command: AccessCommand) => {
    const events = valueOf(decide(command))
    s.apply('web', events)
    return events
  }

  t.test('add grants each role to the users and groups', async (t) => {
    const [event] = send({ type: 'access.add', roles: [roleIds.member], users: [ann], groups: [team] })
    t.match(event, { type: 'project-access-added', project: 'web', createdBy: 'admin@example.com', createdByUserId: 1 })
    t.same(event.data, { roles: [{ roleId: roleIds.member, groupIds: [team], userIds: [ann] }] })
    t.same(project().access.users.get(ann), [roleIds.member])
    t.same(project().access.groups.get(team), [roleIds.member])
    send({ type: 'access.add', roles: [roleIds.owner], users: [ann], groups: [] })
    t.same(project().access.users.get(ann), [roleIds.owner, roleIds.member].sort((a, b) => a - b), 'roles accumulate')
  })

  t.test('refusals', async (t) => {
    t.equal(errorOf(decide({ type: 'access.add', roles: [roleIds.admin], users: [ann], groups: [] })).kind, 'BadDataError', 'a root role')
    t.equal(errorOf(decide({ type: 'access.add', roles: [99], users: [ann], groups: [] })).kind, 'BadDataError', 'an unknown role')
    t.equal(errorOf(decide({ type: 'access.add', roles: [roleIds.member], users: [99], groups: [] })).kind, 'BadDataError', 'an unknown user')
    t.equal(errorOf(decide({ type: 'access.add', roles: [roleIds.member], users: [], groups: [99] })).kind, 'BadDataError', 'an unknown group')
    t.equal(errorOf(decide({ type: 'access.add', roles: [], users: [ann], groups: [] })).kind, 'BadDataError', 'no role')
    t.equal(errorOf(decide({ type: 'access.setUserRoles', userId: ann, roles: [roleIds.editor] })).kind, 'BadDataError', 'set a root role')
  })

  t.test('set user and group roles: new and old; a no-op records nothing', async (t) => {
    const [event] = send({ type: 'access.setUserRoles', userId: ann, roles: [roleIds.member] })
    t.match(event, { type: 'project-access-user-roles-updated', data: { roles: [roleIds.member], userId: ann }, preData: { roles: [roleIds.owner, roleIds.member].sort((a, b) => a - b), userId: ann } })
    t.same(valueOf(decide({ type: 'access.setUserRoles', userId: ann, roles: [roleIds.member] })), [])
    const [group] = send({ type: 'access.setGroupRoles', groupId: team, roles: [roleIds.owner, roleIds.member] })
    t.match(group, { type: 'project-access-group-roles-updated', data: { groupId: team, roles: [roleIds.owner, roleIds.member].sort((a, b) => a - b) }, preData: { roles: [roleIds.member] } })
    t.same(project().access.groups.get(team), [roleIds.owner, roleIds.member].sort((a, b) => a - b))
  })

  t.test('remove: the entry goes; removing what is not there records nothing', async (t) => {
    const [user] = send({ type: 'access.removeUser', userId: ann })
    t.match(user, { type: 'project-access-user-roles-deleted', preData: { roles: [roleIds.member], userId: ann } })
    t.notOk(project().access.users.has(ann))
    t.same(valueOf(decide({ type: 'access.removeUser', userId: ann })), [])
    const [group] = send({ type: 'access.removeGroup', groupId: team })
    t.equal(group.type, 'project-access-group-roles-deleted')
    t.notOk(project().access.groups.has(team))
    t.same(valueOf(decide({ type: 'access.removeGroup', groupId: team })), [])
  })

  t.test('evolveAccess: setting no roles removes the entry; other events leave access alone', async (t) => {
    const base = evolveAccess(emptyAccess(), { type: 'project-access-added', createdAt: at(0), createdBy: 'x', createdByUserId: 1, data: { roles: [{ roleId: 5, userIds: [1, 2], groupIds: [3] }, { roleId: 4, userIds: [1], groupIds: [] }] } })
    t.same(base.users.get(1), [4, 5])
    t.same(base.users.get(2), [5])
    t.same(base.groups.get(3), [5])
    const cleared = evolveAccess(base, { type: 'project-access-user-roles-updated', createdAt: at(0), createdBy: 'x', createdByUserId: 1, data: { roles: [], userId: 2 }, preData: { roles: [5], userId: 2 } })
    t.notOk(cleared.users.has(2))
    t.equal(evolveAccess(base, { type: 'feature-archived', createdAt: at(0), createdBy: 'x', createdByUserId: 1 }), base)
  })
})

t.test('evolvePeople ignores events that are not its own', async (t) => {
  const state = emptyPeople()
  t.equal(evolvePeople(state, { type: 'feature-archived', createdAt: at(0), createdBy: 'x', createdByUserId: 1 }), state)
})

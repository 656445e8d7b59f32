import type { CreateServiceAccount, CreateSignupToken, CreateUser, GroupInput, RoleInput, UpdateSignupToken, UpdateUser } from '../schemas/people.js'
import { DomainError, badData, fail, forbidden, nameExists, notFound, ok, type Result } from './errors.js'
import type { GroupData, PublicUser } from './event-data.js'
import { draft, type CommandMeta, type EventDraft, type EventOf } from './events.js'
import { withEntry } from './immutable.js'
import { isRootRole, roleIds, type Group, type PeopleState, type Role, type SignupToken, type User } from './people-state.js'

export const maxPatsPerUser = 10
export const maxSignupTokenLifetimeMs = 31 * 24 * 3600 * 1000

export type PeopleCommand =
  | { type: 'user.create'; input: CreateUser; passwordHash: string | null; meta: CommandMeta }
  | { type: 'user.update'; id: number; input: UpdateUser; meta: CommandMeta }
  | { type: 'user.delete'; id: number; meta: CommandMeta }
  | { type: 'user.setPassword'; id: number; passwordHash: string; meta: CommandMeta }
  | { type: 'serviceAccount.create'; input: CreateServiceAccount; meta: CommandMeta }
  | { type: 'serviceAccount.update'; id: number; input: UpdateUser; meta: CommandMeta }
  | { type: 'serviceAccount.delete'; id: number; meta: CommandMeta }
  | { type: 'role.create'; input: RoleInput; meta: CommandMeta }
  | { type: 'role.update'; id: number; input: RoleInput; meta: CommandMeta }
  | { type: 'role.delete'; id: number; inUse: boolean; meta: CommandMeta }
  | { type: 'group.create'; input: GroupInput; meta: CommandMeta }
  | { type: 'group.update'; id: number; input: GroupInput; meta: CommandMeta }
  | { type: 'group.delete'; id: number; meta: CommandMeta }
  | { type: 'pat.create'; userId: number; description: string; expiresAt: string; secretHash: string; meta: CommandMeta }
  | { type: 'pat.delete'; userId: number; id: number; meta: CommandMeta }
  | { type: 'signupToken.create'; input: CreateSignupToken; secret: string; meta: CommandMeta }
  | { type: 'signupToken.update'; secret: string; input: UpdateSignupToken; meta: CommandMeta }
  | { type: 'signupToken.signup'; secret: string; user: { email: string; name: string; username?: string }; passwordHash: string; meta: CommandMeta }

type IssuedKind = keyof NonNullable<PeopleState['issuedIds']>
const mapOf = (state: PeopleState, kind: IssuedKind): ReadonlyMap<number, unknown> =>
  kind === 'role' ? state.roles : kind === 'group' ? state.groups : state.pats
const highestId = (state: PeopleState, kind: IssuedKind) => Math.max(0, state.issuedIds?.[kind] ?? 0, ...mapOf(state, kind).keys())
// Ids are never reused, even after a delete.
const nextId = (state: PeopleState, kind: IssuedKind) => highestId(state, kind) + 1
const nextUserId = (users: ReadonlyMap<number, unknown>) => Math.max(0, ...users.keys()) + 1
const issued = (state: PeopleState, kind: IssuedKind, id: number): PeopleState['issuedIds'] => ({
  role: highestId(state, 'role'),
  group: highestId(state, 'group'),
  pat: highestId(state, 'pat'),
  [kind]: Math.max(highestId(state, kind), id),
})

export const publicUser = (user: User): PublicUser => ({ id: user.id, name: user.name, username: user.username, email: user.email, rootRole: user.rootRole })

const resolveRootRole = (state: PeopleState, ref: number | string): Result<Role> => {
  const role =
    typeof ref === 'number' ? state.roles.get(ref) : [...state.roles.values()].find((r) => r.name.toLowerCase() === ref.toLowerCase())
  if (!role || !isRootRole(role)) return fail(badData(`Could not find root role ${ref}`))
  return ok(role)
}

const activeUsers = (state: PeopleState) => [...state.users.values()].filter((u) => !u.deleted)

const sameIdentity = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a.toLowerCase() === b.toLowerCase()

const checkUnique = (state: PeopleState, username: string | null | undefined, email: string | null | undefined, exceptId?: number) => {
  const clash = activeUsers(state).some(
    (u) => u.id !== exceptId && (sameIdentity(u.username, username) || sameIdentity(u.email, email)),
  )
  return clash ? badData('User already exists') : undefined
}

const findUser = (state: PeopleState, id: number, accountType: User['accountType'] = 'User'): Result<User> => {
  const user = state.users.get(id)
  if (!user || user.deleted || user.accountType !== accountType) return fail(notFound(`Could not find ${accountType === 'User' ? 'user' : 'service account'} with id ${id}`))
  return ok(user)
}

// A user or service account to create: who it is, its root role (by id or name), how it logs in.
interface NewAccount {
  username?: string
  email?: string
  name?: string | null
  rootRole: number | string
  accountType: User['accountType']
  passwordHash: string | null
}

const createUser = (state: PeopleState, fields: NewAccount, meta: CommandMeta): Result<{ user: User; event: EventDraft }> => {
  const { accountType, passwordHash } = fields
  if (!fields.username && !fields.email) return fail(badData('You must specify username or email'))
  const duplicate = checkUnique(state, fields.username, fields.email)
  if (duplicate) return fail(duplicate)
  const role = resolveRootRole(state, fields.rootRole)
  if (!role.ok) return role
  const user: User = {
    id: nextUserId(state.users),
    name: fields.name ?? null,
    username: fields.username ?? null,
    email: fields.email ?? null,
    rootRole: role.value.id,
    accountType,
    createdAt: meta.now,
    deleted: false,
    passwordHash,
  }
  const type = accountType === 'User' ? 'user-created' : 'service-account-created'
  return ok({ user, event: draft(meta, type, { data: publicUser(user), hidden: { passwordHash, accountType } }) })
}

const updateUser = (state: PeopleState, { id, input, meta }: { id: number; input: UpdateUser; meta: CommandMeta }, accountType: User['accountType']): Result<EventDraft[]> => {
  const found = findUser(state, id, accountType)
  if (!found.ok) return found
  const current = found.value
  const duplicate = checkUnique(state, input.username, input.email, id)
  if (duplicate) return fail(duplicate)
  let rootRole = current.rootRole
  if (input.rootRole !== undefined) {
    const role = resolveRootRole(state, input.rootRole)
    if (!role.ok) return role
    rootRole = role.value.id
  }
  const next: User = {
    ...current,
    name: input.name === undefined ? current.name : input.name,
    email: input.email ?? current.email,
    username: input.username ?? current.username,
    rootRole,
  }
  if (JSON.stringify(publicUser(next)) === JSON.stringify(publicUser(current))) return ok([])
  const type = accountType === 'User' ? 'user-updated' : 'service-account-updated'
  return ok([draft(meta, type, { data: publicUser(next), preData: publicUser(current) })])
}

const roleFrom = (input: RoleInput, id: number): Role => ({
  id,
  type: input.type,
  name: input.name,
  description: input.description ?? null,
  permissions: input.permissions,
  builtIn: false,
})

const groupFrom = (input: GroupInput, id: number, meta: CommandMeta, current?: Group): Group => ({
  id,
  name: input.name,
  description: input.description ?? null,
  mappingsSSO: input.mappingsSSO,
  rootRole: input.rootRole ?? null,
  users: input.users.map(({ user }) => current?.users.find((m) => m.userId === user.id) ?? { userId: user.id, joinedAt: meta.now, createdBy: meta.actor.name }),
  createdAt: current?.createdAt ?? meta.now,
  createdBy: current?.createdBy ?? meta.actor.name,
})

const groupData = (group: Group): GroupData => ({ ...group, users: group.users.map((u) => u.userId) })

const validateGroup = (state: PeopleState, input: GroupInput, id?: number): DomainError | undefined => {
  if ([...state.groups.values()].some((g) => g.id !== id && g.name === input.name)) return nameExists('Group name already exists')
  if (input.rootRole != null) {
    const role = state.roles.get(input.rootRole)
    if (!role || !isRootRole(role)) return badData(`Could not find root role ${input.rootRole}`)
  }
  for (const { user } of input.users) {
    const member = state.users.get(user.id)
    if (!member || member.deleted) return badData(`Could not find user with id ${user.id}`)
  }
  return undefined
}

export const isSignupTokenValid = (token: SignupToken, now: string) => token.enabled && Date.parse(token.expiresAt) > Date.parse(now)

export const decidePeople = (state: PeopleState, command: PeopleCommand): Result<EventDraft[]> => {
  const { meta } = command
  switch (command.type) {
    case 'user.create': {
      const created = createUser(state, { ...command.input, accountType: 'User', passwordHash: command.passwordHash }, meta)
      return created.ok ? ok([created.value.event]) : created
    }
    case 'user.update':
      return updateUser(state, command, 'User')
    case 'user.delete': {
      const found = findUser(state, command.id)
      if (!found.ok) return found
      return ok([draft(meta, 'user-deleted', { preData: publicUser(found.value) })])
    }
    case 'user.setPassword': {
      const found = findUser(state, command.id)
      if (!found.ok) return found
      return ok([draft(meta, 'user-updated', { data: { ...publicUser(found.value), passwordChanged: true }, preData: publicUser(found.value), hidden: { passwordHash: command.passwordHash } })])
    }
    case 'serviceAccount.create': {
      const created = createUser(state, { ...command.input, accountType: 'Service Account', passwordHash: null }, meta)
      return created.ok ? ok([created.value.event]) : created
    }
    case 'serviceAccount.update':
      return updateUser(state, command, 'Service Account')
    case 'serviceAccount.delete': {
      const found = findUser(state, command.id, 'Service Account')
      if (!found.ok) return found
      return ok([draft(meta, 'service-account-deleted', { preData: publicUser(found.value) })])
    }
    case 'role.create': {
      if ([...state.roles.values()].some((r) => r.name.toLowerCase() === command.input.name.toLowerCase())) {
        return fail(nameExists(`There already exists a role with the name ${command.input.name}`))
      }
      return ok([draft(meta, 'role-created', { data: roleFrom(command.input, nextId(state, 'role')) })])
    }
    case 'role.update': {
      const current = state.roles.get(command.id)
      if (!current) return fail(notFound(`Could not find role with id ${command.id}`))
      if (current.builtIn) return fail(forbidden('You can not change a predefined role'))
      if ([...state.roles.values()].some((r) => r.id !== command.id && r.name.toLowerCase() === command.input.name.toLowerCase())) {
        return fail(nameExists(`There already exists a role with the name ${command.input.name}`))
      }
      return ok([draft(meta, 'role-updated', { data: roleFrom(command.input, command.id), preData: current })])
    }
    case 'role.delete': {
      const current = state.roles.get(command.id)
      if (!current) return fail(notFound(`Could not find role with id ${command.id}`))
      if (current.builtIn) return fail(forbidden('You can not delete a predefined role'))
      const usedByUser = activeUsers(state).some((u) => u.rootRole === command.id)
      if (usedByUser || command.inUse) return fail(new DomainError('BadDataError', 'RoleInUseError: the role is assigned and cannot be deleted', [{ message: 'Role is in use' }]))
      return ok([draft(meta, 'role-deleted', { preData: current })])
    }
    case 'group.create': {
      const error = validateGroup(state, command.input)
      if (error) return fail(error)
      return ok([draft(meta, 'group-created', { data: groupData(groupFrom(command.input, nextId(state, 'group'), meta)) })])
    }
    case 'group.update': {
      const current = state.groups.get(command.id)
      if (!current) return fail(notFound(`Could not find group with id ${command.id}`))
      const error = validateGroup(state, command.input, command.id)
      if (error) return fail(error)
      const next = groupFrom(command.input, command.id, meta, current)
      if (JSON.stringify(next) === JSON.stringify(current)) return ok([])
      return ok([draft(meta, 'group-updated', { data: groupData(next), preData: groupData(current), hidden: { members: next.users } })])
    }
    case 'group.delete': {
      const current = state.groups.get(command.id)
      if (!current) return fail(notFound(`Could not find group with id ${command.id}`))
      return ok([draft(meta, 'group-deleted', { preData: groupData(current) })])
    }
    case 'pat.create': {
      const mine = [...state.pats.values()].filter((p) => p.userId === command.userId)
      if (Date.parse(command.expiresAt) <= Date.parse(meta.now)) return fail(badData('The expiry date must be in the future'))
      if (mine.length >= maxPatsPerUser) return fail(new DomainError('OperationDeniedError', `A user may not have more than ${maxPatsPerUser} personal access tokens`))
      if (mine.some((p) => p.description === command.description)) return fail(nameExists('A personal access token with that description already exists'))
      const id = nextId(state, 'pat')
      const data = { id, description: command.description, expiresAt: new Date(command.expiresAt).toISOString(), userId: command.userId, createdAt: meta.now }
      return ok([draft(meta, 'pat-created', { data, hidden: { secretHash: command.secretHash } })])
    }
    case 'pat.delete': {
      const pat = state.pats.get(command.id)
      if (!pat || pat.userId !== command.userId) return ok([])
      const { secretHash: _hash, ...visible } = pat
      return ok([draft(meta, 'pat-deleted', { preData: visible })])
    }
    case 'signupToken.create': {
      const roleRef = command.input.role ?? roleIds.viewer
      const role = resolveRootRole(state, roleRef)
      if (!role.ok) return role
      // Unleash caps an invite link's life at about a month.
      const cap = Date.parse(meta.now) + maxSignupTokenLifetimeMs
      const expiresAt = new Date(Math.min(Date.parse(command.input.expiresAt), cap)).toISOString()
      if (Date.parse(expiresAt) <= Date.parse(meta.now)) return fail(badData('The expiry date must be in the future'))
      const token: SignupToken = {
        secret: command.secret,
        name: command.input.name,
        expiresAt,
        createdAt: meta.now,
        createdBy: meta.actor.name,
        enabled: true,
        roleId: role.value.id,
        userIds: [],
      }
      return ok([draft(meta, 'public-signup-token-created', { data: token })])
    }
    case 'signupToken.update': {
      const current = state.signupTokens.get(command.secret)
      if (!current) return fail(notFound('Could not find the signup token'))
      if (command.input.expiresAt === undefined && command.input.enabled === undefined) return fail(badData('Nothing to update: give "expiresAt" or "enabled"'))
      const next = {
        ...current,
        enabled: command.input.enabled ?? current.enabled,
        expiresAt: command.input.expiresAt ? new Date(command.input.expiresAt).toISOString() : current.expiresAt,
      }
      return ok([draft(meta, 'public-signup-token-updated', { data: { secret: next.secret, enabled: next.enabled, expiresAt: next.expiresAt }, preData: { secret: current.secret, enabled: current.enabled, expiresAt: current.expiresAt } })])
    }
    case 'signupToken.signup': {
      const token = state.signupTokens.get(command.secret)
      if (!token || !isSignupTokenValid(token, meta.now)) return fail(badData('The invite link is not valid'))
      const created = createUser(state, { ...command.user, rootRole: token.roleId, accountType: 'User', passwordHash: command.passwordHash }, meta)
      if (!created.ok) return created
      return ok([
        created.value.event,
        draft(meta, 'public-signup-token-user-added', { data: { secret: token.secret, userId: created.value.user.id } }),
      ])
    }
  }
}

const userFromEvent = (event: EventOf<'user-created' | 'service-account-created'>, accountType: User['accountType']): User => ({
  ...event.data,
  accountType,
  createdAt: event.createdAt,
  deleted: false,
  passwordHash: event.hidden?.passwordHash ?? null,
})

export const evolvePeople = (state: PeopleState, event: EventDraft): PeopleState => {
  switch (event.type) {
    case 'user-created':
      return { ...state, users: withEntry(state.users, event.data.id, userFromEvent(event, 'User')) }
    case 'service-account-created':
      return { ...state, users: withEntry(state.users, event.data.id, userFromEvent(event, 'Service Account')) }
    case 'user-updated':
    case 'service-account-updated': {
      const current = state.users.get(event.data.id)
      if (!current) return state
      const { passwordChanged: _changed, ...fields }: EventOf<'user-updated'>['data'] = event.data
      const passwordHash = event.hidden?.passwordHash !== undefined ? event.hidden.passwordHash : current.passwordHash
      return { ...state, users: withEntry(state.users, current.id, { ...current, ...fields, passwordHash }) }
    }
    case 'user-deleted':
    case 'service-account-deleted': {
      const current = state.users.get(event.preData.id)
      if (!current) return state
      const pats = new Map([...state.pats].filter(([, p]) => p.userId !== current.id))
      return { ...state, users: withEntry(state.users, current.id, { ...current, deleted: true, passwordHash: null }), pats }
    }
    case 'role-created':
      return { ...state, roles: withEntry(state.roles, event.data.id, event.data), issuedIds: issued(state, 'role', event.data.id) }
    case 'role-updated':
      return { ...state, roles: withEntry(state.roles, event.data.id, event.data) }
    case 'role-deleted': {
      const roles = new Map(state.roles)
      roles.delete(event.preData.id)
      return { ...state, roles }
    }
    case 'group-created': {
      const data = event.data
      const users = data.users.map((userId) => ({ userId, joinedAt: event.createdAt, createdBy: event.createdBy }))
      return { ...state, groups: withEntry(state.groups, data.id, { ...data, users }), issuedIds: issued(state, 'group', data.id) }
    }
    case 'group-updated':
      return { ...state, groups: withEntry(state.groups, event.data.id, { ...event.data, users: event.hidden.members }) }
    case 'group-deleted': {
      const groups = new Map(state.groups)
      groups.delete(event.preData.id)
      return { ...state, groups }
    }
    case 'pat-created':
      return {
        ...state,
        pats: withEntry(state.pats, event.data.id, { ...event.data, secretHash: String(event.hidden?.secretHash) }),
        issuedIds: issued(state, 'pat', event.data.id),
      }
    case 'pat-deleted': {
      const pats = new Map(state.pats)
      pats.delete(event.preData.id)
      return { ...state, pats }
    }
    case 'public-signup-token-created':
      return { ...state, signupTokens: withEntry(state.signupTokens, event.data.secret, event.data) }
    case 'public-signup-token-updated': {
      const current = state.signupTokens.get(event.data.secret)
      if (!current) return state
      return { ...state, signupTokens: withEntry(state.signupTokens, current.secret, { ...current, enabled: event.data.enabled, expiresAt: event.data.expiresAt }) }
    }
    case 'public-signup-token-user-added': {
      const current = state.signupTokens.get(event.data.secret)
      if (!current) return state
      return { ...state, signupTokens: withEntry(state.signupTokens, current.secret, { ...current, userIds: [...current.userIds, event.data.userId] }) }
    }
    default:
      return state
  }
}

import { badData, fail, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import { isProjectRole, type PeopleState } from './people-state.js'
import type { ProjectAccess, ProjectState } from './project-state.js'

export type AccessCommand =
  | { type: 'access.add'; roles: number[]; users: number[]; groups: number[] }
  | { type: 'access.setUserRoles'; userId: number; roles: number[] }
  | { type: 'access.setGroupRoles'; groupId: number; roles: number[] }
  | { type: 'access.removeUser'; userId: number }
  | { type: 'access.removeGroup'; groupId: number }

export const emptyAccess = (): ProjectAccess => ({ users: new Map(), groups: new Map(), addedAt: new Map() })

const checkRoles = (people: PeopleState, roles: number[]) => {
  for (const id of roles) {
    const role = people.roles.get(id)
    if (!role || !isProjectRole(role)) return badData(`Could not find project role with id ${id}`)
  }
  return undefined
}

const checkUser = (people: PeopleState, id: number) => {
  const user = people.users.get(id)
  return !user || user.deleted ? badData(`Could not find user with id ${id}`) : undefined
}

const checkGroup = (people: PeopleState, id: number) => (people.groups.has(id) ? undefined : badData(`Could not find group with id ${id}`))

const union = (a: number[] = [], b: number[]) => [...new Set([...a, ...b])].sort((x, y) => x - y)

export const decideAccess = (state: ProjectState, command: AccessCommand, people: PeopleState, meta: CommandMeta): Result<EventDraft[]> => {
  const project = state.settings.id
  switch (command.type) {
    case 'access.add': {
      const error =
        checkRoles(people, command.roles) ??
        command.users.map((id) => checkUser(people, id)).find(Boolean) ??
        command.groups.map((id) => checkGroup(people, id)).find(Boolean)
      if (error) return fail(error)
      if (command.roles.length === 0) return fail(badData('"roles" must hold at least one role'))
      return ok([
        draft(meta, 'project-access-added', {
          project,
          data: { roles: command.roles.map((roleId) => ({ roleId, groupIds: command.groups, userIds: command.users })) },
        }),
      ])
    }
    case 'access.setUserRoles': {
      const error = checkRoles(people, command.roles) ?? checkUser(people, command.userId)
      if (error) return fail(error)
      const roles = union([], command.roles)
      const current = state.access.users.get(command.userId) ?? []
      if (JSON.stringify(current) === JSON.stringify(roles)) return ok([])
      return ok([draft(meta, 'project-access-user-roles-updated', { project, data: { roles, userId: command.userId }, preData: { roles: current, userId: command.userId } })])
    }
    case 'access.setGroupRoles': {
      const error = checkRoles(people, command.roles) ?? checkGroup(people, command.groupId)
      if (error) return fail(error)
      const roles = union([], command.roles)
      const current = state.access.groups.get(command.groupId) ?? []
      if (JSON.stringify(current) === JSON.stringify(roles)) return ok([])
      return ok([draft(meta, 'project-access-group-roles-updated', { project, data: { roles, groupId: command.groupId }, preData: { roles: current, groupId: command.groupId } })])
    }
    case 'access.removeUser': {
      const current = state.access.users.get(command.userId)
      if (!current) return ok([])
      return ok([draft(meta, 'project-access-user-roles-deleted', { project, preData: { roles: current, userId: command.userId } })])
    }
    case 'access.removeGroup': {
      const current = state.access.groups.get(command.groupId)
      if (!current) return ok([])
      return ok([draft(meta, 'project-access-group-roles-deleted', { project, preData: { roles: current, groupId: command.groupId } })])
    }
  }
}

const setRoles = (map: ReadonlyMap<number, number[]>, id: number, roles: number[]) => {
  const next = new Map(map)
  if (roles.length === 0) next.delete(id)
  else next.set(id, roles)
  return next
}

// The time a member keeps from its first role until its last is taken away.
const withAddedAt = (before: ProjectAccess, after: Omit<ProjectAccess, 'addedAt'>, at: string): ProjectAccess => {
  const addedAt = new Map(before.addedAt)
  for (const [kind, map] of [['user', after.users], ['group', after.groups]] as const) {
    for (const id of map.keys()) if (!addedAt.has(`${kind}:${id}`)) addedAt.set(`${kind}:${id}`, at)
  }
  for (const key of addedAt.keys()) {
    const [kind, id] = key.split(':')
    if (!(kind === 'user' ? after.users : after.groups).has(Number(id))) addedAt.delete(key)
  }
  return { ...after, addedAt }
}

export const evolveAccess = (access: ProjectAccess, event: EventDraft): ProjectAccess => {
  const current = access
  switch (event.type) {
    case 'project-access-added': {
      let { users, groups } = current
      for (const { roleId, userIds, groupIds } of event.data.roles) {
        for (const id of userIds) users = setRoles(users, id, union(users.get(id), [roleId]))
        for (const id of groupIds) groups = setRoles(groups, id, union(groups.get(id), [roleId]))
      }
      return withAddedAt(current, { users, groups }, event.createdAt)
    }
    case 'project-access-user-roles-updated':
      return withAddedAt(current, { ...current, users: setRoles(current.users, event.data.userId, event.data.roles) }, event.createdAt)
    case 'project-access-group-roles-updated':
      return withAddedAt(current, { ...current, groups: setRoles(current.groups, event.data.groupId, event.data.roles) }, event.createdAt)
    case 'project-access-user-roles-deleted':
      return withAddedAt(current, { ...current, users: setRoles(current.users, event.preData.userId, []) }, event.createdAt)
    case 'project-access-group-roles-deleted':
      return withAddedAt(current, { ...current, groups: setRoles(current.groups, event.preData.groupId, []) }, event.createdAt)
    default:
      return access
  }
}

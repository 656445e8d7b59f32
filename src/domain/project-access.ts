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

export const emptyAccess = (): ProjectAccess => ({ users: new Map(), groups: new Map() })

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

export const evolveAccess = (access: ProjectAccess, event: EventDraft): ProjectAccess => {
  switch (event.type) {
    case 'project-access-added': {
      let { users, groups } = access
      for (const { roleId, userIds, groupIds } of event.data.roles as { roleId: number; userIds: number[]; groupIds: number[] }[]) {
        for (const id of userIds) users = setRoles(users, id, union(users.get(id), [roleId]))
        for (const id of groupIds) groups = setRoles(groups, id, union(groups.get(id), [roleId]))
      }
      return { users, groups }
    }
    case 'project-access-user-roles-updated':
      return { ...access, users: setRoles(access.users, event.data.userId, event.data.roles) }
    case 'project-access-group-roles-updated':
      return { ...access, groups: setRoles(access.groups, event.data.groupId, event.data.roles) }
    case 'project-access-user-roles-deleted':
      return { ...access, users: setRoles(access.users, event.preData.userId, []) }
    case 'project-access-group-roles-deleted':
      return { ...access, groups: setRoles(access.groups, event.preData.groupId, []) }
    default:
      return access
  }
}

import type { Permission, PeopleState, Role } from '../domain/people-state.js'
import { roleIds } from '../domain/people-state.js'
import type { ProjectState } from '../domain/project-state.js'

// Unleash's permission names as the roles grant them. Project permissions are checked in a project
// (and, when a role names one, an environment); root permissions are instance-wide.
export const projectPermissions = [
  'CREATE_FEATURE', 'UPDATE_FEATURE', 'DELETE_FEATURE', 'CREATE_FEATURE_STRATEGY', 'UPDATE_FEATURE_STRATEGY',
  'DELETE_FEATURE_STRATEGY', 'UPDATE_FEATURE_ENVIRONMENT', 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'UPDATE_FEATURE_VARIANTS',
  'UPDATE_FEATURE_DEPENDENCY', 'MOVE_FEATURE_TOGGLE', 'UPDATE_PROJECT', 'DELETE_PROJECT', 'UPDATE_PROJECT_SEGMENT',
  'PROJECT_DEFAULT_STRATEGY_WRITE', 'PROJECT_USER_ACCESS_WRITE', 'APPROVE_CHANGE_REQUEST', 'APPLY_CHANGE_REQUEST',
  'SKIP_CHANGE_REQUEST', 'CREATE_PROJECT_API_TOKEN', 'DELETE_PROJECT_API_TOKEN', 'READ_PROJECT_API_TOKEN',
] as const

const memberPermissions = new Set<string>([
  'CREATE_FEATURE', 'UPDATE_FEATURE', 'DELETE_FEATURE', 'CREATE_FEATURE_STRATEGY', 'UPDATE_FEATURE_STRATEGY',
  'DELETE_FEATURE_STRATEGY', 'UPDATE_FEATURE_ENVIRONMENT', 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'UPDATE_FEATURE_VARIANTS',
  'UPDATE_FEATURE_DEPENDENCY', 'READ_PROJECT_API_TOKEN',
])

const editorRootPermissions = new Set<string>([
  'CREATE_PROJECT', 'CREATE_STRATEGY', 'UPDATE_STRATEGY', 'DELETE_STRATEGY', 'CREATE_CONTEXT_FIELD', 'UPDATE_CONTEXT_FIELD',
  'DELETE_CONTEXT_FIELD', 'CREATE_SEGMENT', 'UPDATE_SEGMENT', 'DELETE_SEGMENT', 'CREATE_TAG_TYPE', 'UPDATE_TAG_TYPE',
  'DELETE_TAG_TYPE', 'READ_API_TOKEN', 'CREATE_CLIENT_API_TOKEN', 'UPDATE_CLIENT_API_TOKEN', 'DELETE_CLIENT_API_TOKEN',
  'CREATE_FRONTEND_API_TOKEN', 'UPDATE_FRONTEND_API_TOKEN', 'DELETE_FRONTEND_API_TOKEN', 'UPDATE_APPLICATION',
  'CREATE_ADDON', 'UPDATE_ADDON', 'DELETE_ADDON', 'UPDATE_TAG', 'CREATE_TAG', 'DELETE_TAG',
])

const isProjectPermission = (name: string) => (projectPermissions as readonly string[]).includes(name)
// Writing past a required change request is for admins and roles that name it, not for owners or editors.
const impliedProjectPermission = (name: string) => isProjectPermission(name) && name !== 'SKIP_CHANGE_REQUEST'

const grants = (role: Role | undefined, permission: string, environment: string | undefined): boolean => {
  if (!role) return false
  if (role.id === roleIds.admin) return true
  if (role.id === roleIds.owner) return impliedProjectPermission(permission)
  if (role.id === roleIds.member) return memberPermissions.has(permission)
  if (role.id === roleIds.editor) return editorRootPermissions.has(permission) || impliedProjectPermission(permission)
  return role.permissions.some((p: Permission) => p.name === permission && (!p.environment || !environment || p.environment === environment))
}

export interface PermissionSource {
  people(): PeopleState
  project(id: string): ProjectState | undefined
}

// A user's roles: the root role, the root roles of their groups, and, in a project, the project roles
// given to them or to one of their groups.
export const userCan = (source: PermissionSource, userId: number) => (permission: string, project?: string, environment?: string): boolean => {
  const people = source.people()
  const user = people.users.get(userId)
  if (!user || user.deleted) return false
  const groups = [...people.groups.values()].filter((g) => g.users.some((m) => m.userId === userId))
  const rootRoles = [user.rootRole, ...groups.map((g) => g.rootRole).filter((r): r is number => r !== null)]
  if (rootRoles.some((id) => grants(people.roles.get(id), permission, environment))) return true
  if (!project) return false
  const access = source.project(project)?.access
  if (!access) return false
  const projectRoles = [...(access.users.get(userId) ?? []), ...groups.flatMap((g) => access.groups.get(g.id) ?? [])]
  return projectRoles.some((id) => grants(people.roles.get(id), permission, environment))
}

export const permissionList = (source: PermissionSource, userId: number, projects: string[]) => {
  const can = userCan(source, userId)
  const all = [...new Set([...editorRootPermissions, ...projectPermissions, 'ADMIN'])]
  const list: { permission: string; project?: string }[] = all.filter((p) => can(p)).map((permission) => ({ permission }))
  for (const project of projects) {
    for (const permission of projectPermissions) if (!can(permission) && can(permission, project)) list.push({ permission, project })
  }
  return list
}

import { createHash } from 'node:crypto'
import type { Group, PeopleState, Role, SignupToken, User } from '../domain/people-state.js'
import { isRootRole, roleIds } from '../domain/people-state.js'
import type { ProjectState } from '../domain/project-state.js'

export interface PeopleViewContext {
  people: PeopleState
  activity: (userId: number) => { loginAttempts: number; seenAt: string | null }
  publicUrl: string
  now: () => Date
}

// Unleash 8.2's generateImageUrl: the gravatar of the email, else the username, else the id, SHA-256
// hashed after lower-casing (its check for an `@` lower-cases everything but an ident that starts with one).
export const imageUrlOf = (person: { id: number | null; email?: string | null; username?: string | null }): string => {
  const ident = person.email || person.username || String(person.id)
  const normalised = ident.indexOf('@') === 0 ? ident.trim() : ident.toLowerCase().trim()
  return `https://gravatar.com/avatar/${createHash('sha256').update(normalised).digest('hex')}?s=42&d=retro&r=g`
}
// The name Unleash shows for a user: name, else username, else email.
export const displayName = (user: User): string => user.name || user.username || user.email || `user ${user.id}`

export const groupsOf = (people: PeopleState, userId: number): Group[] => [...people.groups.values()].filter((g) => g.users.some((m) => m.userId === userId))

// The user's roles in a project: given to them, or to one of their groups.
export const projectRolesOf = (people: PeopleState, project: ProjectState, userId: number): number[] => [
  ...new Set([...(project.access.users.get(userId) ?? []), ...groupsOf(people, userId).flatMap((g) => project.access.groups.get(g.id) ?? [])]),
]

// Projects where the user holds a role, directly or through a group (Unleash's "my projects").
export const projectsOfUser = (people: PeopleState, projects: Iterable<ProjectState>, userId: number): ProjectState[] =>
  [...projects].filter((p) => projectRolesOf(people, p, userId).length > 0)

// GET /api/admin/user/profile: the root role, projects and groups of the signed-in user. No email
// subscriptions (this server sends no email); Unleash lists no features here either.
export const profileView = (user: User, people: PeopleState, projects: Iterable<ProjectState>, hasPassword: boolean) => {
  const rootRole = people.roles.get(user.rootRole) ?? people.roles.get(roleIds.viewer)
  return {
    rootRole: rootRole && { id: rootRole.id, type: rootRole.type, name: rootRole.name, description: rootRole.description ?? '', project: null },
    projects: projectsOfUser(people, projects, user.id).map((p) => p.settings.id),
    groups: groupsOf(people, user.id).map((g) => ({ id: g.id, name: g.name, description: g.description, mappingsSSO: g.mappingsSSO, rootRole: g.rootRole, scimId: null })),
    subscriptions: [],
    features: [],
    canChangePassword: hasPassword,
  }
}

// Owners of a project, as Unleash's dashboards show them: users and groups holding its Owner role, or
// "system" when none does.
export const projectOwners = (people: PeopleState, project: ProjectState) => {
  const users = [...project.access.users].flatMap(([userId, roles]) => {
    const user = people.users.get(userId)
    return user && !user.deleted && roles.includes(roleIds.owner)
      ? [{ ownerType: 'user' as const, name: displayName(user), email: user.email, imageUrl: imageUrlOf(user) }]
      : []
  })
  const groups = [...project.access.groups].flatMap(([groupId, roles]) => {
    const group = people.groups.get(groupId)
    return group && roles.includes(roleIds.owner) ? [{ ownerType: 'group' as const, name: group.name }] : []
  })
  return users.length + groups.length > 0 ? [...users, ...groups] : [{ ownerType: 'system' as const }]
}

// Users whose root role is Admin.
export const adminsView = (people: PeopleState) =>
  [...people.users.values()]
    .filter((u) => !u.deleted && u.accountType === 'User' && u.rootRole === roleIds.admin)
    .map((u) => ({ id: u.id, name: u.name ?? undefined, username: u.username ?? undefined, email: u.email ?? undefined, imageUrl: imageUrlOf(u) }))

// INTERFACE 2.16; never the password hash.
export const userView = (user: User, ctx: PeopleViewContext) => {
  const activity = ctx.activity(user.id)
  return {
    id: user.id,
    isAPI: false,
    name: user.name,
    email: user.email ?? undefined,
    username: user.username,
    imageUrl: imageUrlOf(user),
    loginAttempts: activity.loginAttempts,
    emailSent: false,
    rootRole: user.rootRole,
    seenAt: activity.seenAt,
    createdAt: user.createdAt,
    accountType: user.accountType,
    permissions: [],
    scimId: null,
  }
}

export const roleView = (role: Role) => ({
  id: role.id,
  type: role.type,
  name: role.name,
  description: role.description ?? '',
  project: null,
  permissions: role.permissions,
})

export const rootRoles = (people: PeopleState) => [...people.roles.values()].filter(isRootRole).map(roleView)

export const groupView = (group: Group, ctx: PeopleViewContext, projects: Iterable<ProjectState> = []) => ({
  id: group.id,
  name: group.name,
  description: group.description,
  mappingsSSO: group.mappingsSSO,
  rootRole: group.rootRole,
  createdBy: group.createdBy,
  createdAt: group.createdAt,
  scimId: null,
  userCount: group.users.length,
  projects: [...projects].filter((p) => p.access.groups.has(group.id)).map((p) => p.settings.id),
  users: group.users.flatMap((member) => {
    const user = ctx.people.users.get(member.userId)
    return user && !user.deleted ? [{ joinedAt: member.joinedAt, createdBy: member.createdBy, user: userView(user, ctx) }] : []
  }),
})

export const signupTokenView = (token: SignupToken, ctx: PeopleViewContext) => {
  const role = ctx.people.roles.get(token.roleId)
  return {
    secret: token.secret,
    url: `${ctx.publicUrl}/new-user?invite=${token.secret}`,
    name: token.name,
    // Always false once expired (INTERFACE 2.18), whatever was stored.
    enabled: token.enabled && Date.parse(token.expiresAt) > ctx.now().getTime(),
    expiresAt: token.expiresAt,
    createdAt: token.createdAt,
    createdBy: token.createdBy,
    users: token.userIds.flatMap((id) => {
      const user = ctx.people.users.get(id)
      return user ? [userView(user, ctx)] : []
    }),
    role: role ? roleView(role) : null,
  }
}

import { createHash } from 'node:crypto'
import type { Group, PeopleState, Role, SignupToken, User } from '../domain/people-state.js'
import { isRootRole } from '../domain/people-state.js'
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

// People live in the instance actor: users, roles, groups, personal access tokens and signup tokens.
export interface User {
  id: number
  name: string | null
  username: string | null
  email: string | null
  rootRole: number
  accountType: 'User' | 'Service Account'
  createdAt: string
  deleted: boolean
  // Never listed: views and events leave it out.
  passwordHash: string | null
}

export interface Permission {
  name: string
  environment?: string
}

export interface Role {
  id: number
  type: 'root' | 'project' | 'root-custom' | 'custom'
  name: string
  description: string | null
  permissions: Permission[]
  builtIn: boolean
}

export interface GroupMember {
  userId: number
  joinedAt: string
  createdBy: string | null
}

export interface Group {
  id: number
  name: string
  description: string | null
  mappingsSSO: string[]
  rootRole: number | null
  users: GroupMember[]
  createdAt: string
  createdBy: string | null
}

export interface Pat {
  id: number
  // sha256 of the secret: the secret itself is shown once, at creation, and never stored.
  secretHash: string
  description: string
  userId: number
  expiresAt: string
  createdAt: string
}

export interface SignupToken {
  secret: string
  name: string
  expiresAt: string
  createdAt: string
  createdBy: string | null
  enabled: boolean
  roleId: number
  userIds: number[]
}

export interface PeopleState {
  users: ReadonlyMap<number, User>
  roles: ReadonlyMap<number, Role>
  groups: ReadonlyMap<number, Group>
  pats: ReadonlyMap<number, Pat>
  signupTokens: ReadonlyMap<string, SignupToken>
  // The highest id ever issued per kind: a deleted group's id must not come back, or a new group would
  // inherit the project roles still recorded under it. Absent in older snapshots (then the maps' keys).
  issuedIds?: Readonly<{ role: number; group: number; pat: number }>
}

export const roleIds = { admin: 1, editor: 2, viewer: 3, owner: 4, member: 5 } as const

const builtInRole = (id: number, type: Role['type'], name: string, description: string): Role => ({
  id,
  type,
  name,
  description,
  permissions: [],
  builtIn: true,
})

// Unleash's predefined roles and ids on a fresh install.
export const builtInRoles: Role[] = [
  builtInRole(roleIds.admin, 'root', 'Admin', 'Users with the root admin role have superuser access to Unleash and can perform any operation within the Unleash platform.'),
  builtInRole(roleIds.editor, 'root', 'Editor', 'Users with the root editor role have access to most features in Unleash, but can not manage users and roles in the root scope. Editors will be added as project owners when creating projects and get superuser rights within the context of these projects.'),
  builtInRole(roleIds.viewer, 'root', 'Viewer', 'Users with the root viewer role can only read root resources in Unleash. Viewers can be added to specific projects as project members. Users with the viewer role may not view API tokens.'),
  builtInRole(roleIds.owner, 'project', 'Owner', 'Users with the project owner role have full control over the project, and can add and manage other users within the project context, manage feature flags within the project, and control advanced project features like archiving and deleting the project.'),
  builtInRole(roleIds.member, 'project', 'Member', 'Users with the project member role are allowed to view, create, and update feature flags within a project, but have limited permissions in regards to managing the project\'s user access and can not archive or delete the project.'),
]

export const emptyPeople = (): PeopleState => ({
  users: new Map(),
  roles: new Map(builtInRoles.map((r) => [r.id, r])),
  groups: new Map(),
  pats: new Map(),
  signupTokens: new Map(),
})

export const isRootRole = (role: Role) => role.type === 'root' || role.type === 'root-custom'
export const isProjectRole = (role: Role) => role.type === 'project' || role.type === 'custom'

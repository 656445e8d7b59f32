import { notFound } from '../domain/errors.js'
import { recordOfType } from '../domain/events.js'
import { isProjectRole } from '../domain/people-state.js'
import type { Route } from '../http/types.js'
import { groupView, roleView, userView } from '../read/people-views.js'
import { groupSchema, projectAccessSchema, roleSchema, rolesSchema } from '../schemas/people.js'
import { empty, json, metaOf, type ApiDeps } from './deps.js'
import { committedProject } from './lookups.js'
import { numericId, peopleContext } from './people-context.js'
import { parse } from './parse.js'

const accessWrite = ['UPDATE_PROJECT', 'PROJECT_USER_ACCESS_WRITE']

export const accessRoutes = (deps: ApiDeps): Route[] => {
  // Setting and removing the project roles of one user or one group: the same two routes for each.
  const memberRoleRoutes = (members: 'users' | 'groups'): Route[] => {
    const param = members === 'users' ? 'userId' : 'groupId'
    const path = `/api/admin/projects/:projectId/${members}/:${param}/roles`
    const set = (id: number, roles: number[]) =>
      members === 'users' ? { type: 'access.setUserRoles' as const, userId: id, roles } : { type: 'access.setGroupRoles' as const, groupId: id, roles }
    const remove = (id: number) => (members === 'users' ? { type: 'access.removeUser' as const, userId: id } : { type: 'access.removeGroup' as const, groupId: id })
    return [
      {
        method: 'PUT',
        path,
        access: 'admin',
        permission: accessWrite,
        body: true,
        docs: { body: rolesSchema },
        handler: async (req) => {
          const { roles } = parse(rolesSchema, req.body)
          await deps.commands.toProject(req.params.projectId, { ...set(numericId(req.params[param], param), roles), meta: metaOf(deps, req) })
          return empty(200)
        },
      },
      {
        method: 'DELETE',
        path,
        access: 'admin',
        permission: accessWrite,
        handler: async (req) => {
          await deps.commands.toProject(req.params.projectId, { ...remove(numericId(req.params[param], param)), meta: metaOf(deps, req) })
          return empty(200)
        },
      },
    ]
  }

  const people = () => deps.reads.instance.people
  const findRole = (id: number) => {
    const role = people().roles.get(id)
    if (!role) throw notFound(`Could not find role with id ${id}`)
    return role
  }
  const findGroup = (id: number) => {
    const group = people().groups.get(id)
    if (!group) throw notFound(`Could not find group with id ${id}`)
    return group
  }
  const group = (id: number) => groupView(findGroup(id), peopleContext(deps), deps.reads.projects.values())
  const roleInUse = (id: number) =>
    [...deps.reads.projects.values()].some(
      (p) => [...p.access.users.values(), ...p.access.groups.values()].some((roles) => roles.includes(id)),
    ) || [...people().groups.values()].some((g) => g.rootRole === id)

  return [
    { method: 'GET', path: '/api/admin/roles', access: 'admin', handler: () => json({ version: 1, roles: [...people().roles.values()].map(roleView) }) },
    { method: 'GET', path: '/api/admin/roles/:id', access: 'admin', handler: (req) => json(roleView(findRole(numericId(req.params.id, 'id')))) },
    {
      method: 'POST',
      path: '/api/admin/roles',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: roleSchema },
      handler: async (req) => {
        const input = parse(roleSchema, req.body)
        const event = recordOfType(await deps.commands.toInstance({ type: 'role.create', input, meta: metaOf(deps, req) }), 'role-created')
        return json(roleView(findRole(event.data.id)), 201)
      },
    },
    {
      method: 'PUT',
      path: '/api/admin/roles/:id',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: roleSchema },
      handler: async (req) => {
        const id = numericId(req.params.id, 'id')
        await deps.commands.toInstance({ type: 'role.update', id, input: parse(roleSchema, req.body), meta: metaOf(deps, req) })
        return json(roleView(findRole(id)))
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/roles/:id',
      access: 'admin',
      permission: 'ADMIN',
      handler: async (req) => {
        const id = numericId(req.params.id, 'id')
        await deps.commands.toInstance({ type: 'role.delete', id, inUse: roleInUse(id), meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    {
      method: 'GET',
      path: '/api/admin/groups',
      access: 'admin',
      handler: () => json({ groups: [...people().groups.keys()].map(group) }),
    },
    { method: 'GET', path: '/api/admin/groups/:id', access: 'admin', handler: (req) => json(group(numericId(req.params.id, 'id'))) },
    {
      method: 'POST',
      path: '/api/admin/groups',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: groupSchema },
      handler: async (req) => {
        const event = recordOfType(await deps.commands.toInstance({ type: 'group.create', input: parse(groupSchema, req.body), meta: metaOf(deps, req) }), 'group-created')
        return json(group(event.data.id), 201)
      },
    },
    {
      method: 'PUT',
      path: '/api/admin/groups/:id',
      access: 'admin',
      permission: 'ADMIN',
      body: true,
      docs: { body: groupSchema },
      handler: async (req) => {
        const id = numericId(req.params.id, 'id')
        await deps.commands.toInstance({ type: 'group.update', id, input: parse(groupSchema, req.body), meta: metaOf(deps, req) })
        return json(group(id))
      },
    },
    {
      method: 'DELETE',
      path: '/api/admin/groups/:id',
      access: 'admin',
      permission: 'ADMIN',
      handler: async (req) => {
        await deps.commands.toInstance({ type: 'group.delete', id: numericId(req.params.id, 'id'), meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    {
      method: 'GET',
      path: '/api/admin/projects/:projectId/access',
      access: 'admin',
      handler: (req) => {
        const project = committedProject(deps, req.params.projectId)
        const ctx = peopleContext(deps)
        const users = [...project.access.users].flatMap(([userId, roles]) => {
          const user = ctx.people.users.get(userId)
          if (!user || user.deleted) return []
          const view = userView(user, ctx)
          return [{ isAPI: false, name: view.name, email: view.email ?? null, username: view.username, id: user.id, imageUrl: view.imageUrl, addedAt: project.access.addedAt.get(`user:${user.id}`) ?? user.createdAt, roleId: roles[0], roles, accountType: user.accountType }]
        })
        const groups = [...project.access.groups].flatMap(([groupId, roles]) => {
          const found = ctx.people.groups.get(groupId)
          if (!found) return []
          return [{ ...groupView(found, ctx), addedAt: project.access.addedAt.get(`group:${groupId}`) ?? found.createdAt, roleId: roles[0], roles }]
        })
        const roles = [...ctx.people.roles.values()].filter(isProjectRole).map(roleView)
        return json({ groups, users, roles })
      },
    },
    {
      method: 'POST',
      path: '/api/admin/projects/:projectId/access',
      access: 'admin',
      permission: accessWrite,
      body: true,
      docs: { body: projectAccessSchema },
      handler: async (req) => {
        const input = parse(projectAccessSchema, req.body)
        await deps.commands.toProject(req.params.projectId, { type: 'access.add', roles: input.roles, users: input.users, groups: input.groups, meta: metaOf(deps, req) })
        return empty(200)
      },
    },
    ...memberRoleRoutes('users'),
    ...memberRoleRoutes('groups'),
  ]
}


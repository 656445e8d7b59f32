import { DomainError } from '../domain/errors.js'
import type { Request, Route } from '../http/types.js'
import { empty, metaOf, type ApiDeps } from './deps.js'
import { viewerKey } from './viewer.js'

const callerKey = (req: Request): string => {
  const key = viewerKey(req)
  if (!key) throw new DomainError('AuthenticationRequired', 'You must log in to use Unleash.')
  return key
}

// Favorites are per caller (a user, or an admin token by name) and answered 200 with no body.
export const favoriteRoutes = (deps: ApiDeps): Route[] => {
  const feature = (favorite: boolean) => async (req: Request) => {
    await deps.commands.toProject(req.params.projectId, {
      type: 'favorite.feature',
      feature: req.params.featureName,
      userKey: callerKey(req),
      favorite,
      meta: metaOf(deps, req),
    })
    return empty(200)
  }
  const project = (favorite: boolean) => async (req: Request) => {
    await deps.commands.toProject(req.params.projectId, { type: 'favorite.project', userKey: callerKey(req), favorite, meta: metaOf(deps, req) })
    return empty(200)
  }
  const featurePath = '/api/admin/projects/:projectId/features/:featureName/favorites'
  const projectPath = '/api/admin/projects/:projectId/favorites'
  return [
    { method: 'POST', path: featurePath, access: 'admin', handler: feature(true) },
    { method: 'DELETE', path: featurePath, access: 'admin', handler: feature(false) },
    { method: 'POST', path: projectPath, access: 'admin', handler: project(true) },
    { method: 'DELETE', path: projectPath, access: 'admin', handler: project(false) },
  ]
}

import type { Request } from '../http/types.js'

// Favorites are kept per caller: a user by id; an admin token (no user behind it) by its name.
export const viewerKey = (req: Request): string | undefined => {
  const principal = req.principal
  if (!principal) return undefined
  return principal.userId !== null ? `user:${principal.userId}` : `token:${principal.name}`
}

import { DomainError } from '../domain/errors.js'
import type { Access, Authenticator, Principal } from './types.js'

const apiTokenRequired = 'This endpoint requires an API token. Please add an authorization header to your request with a valid token'
export const wrongTokenType = 'invalid token: expected a different token type for this endpoint'
export const sessionCookie = 'unleash-session'

// Printable ASCII other than a space: what neither trim() nor the `bearer ` prefix can start or end with.
const plain = (code: number) => code > 0x20 && code < 0x7f

export const secretFrom = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  // An SDK's token as it sends it: no whitespace around it, and no "Bearer " (which starts with b or B).
  const first = header.charCodeAt(0)
  if (plain(first) && first !== 0x42 && first !== 0x62 && plain(header.charCodeAt(header.length - 1))) return header
  const trimmed = header.trim()
  const secret = /^bearer\s+/i.test(trimmed) ? trimmed.replace(/^bearer\s+/i, '') : trimmed
  return secret.length > 0 ? secret : undefined
}

export const cookieValue = (header: string | undefined, name: string): string | undefined => {
  if (!header) return undefined
  for (const part of header.split(';')) {
    const at = part.indexOf('=')
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim()
  }
  return undefined
}

// Unleash answers each family of paths with its own 401/403 wording; SDKs only read the status.
export const authenticate = (
  access: Access,
  authorization: string | undefined,
  // Read only when there is no token: most requests are SDK polls with one.
  cookie: () => string | undefined,
  authenticator: Authenticator,
  // Admin tokens may call this client or frontend route too; its handler decides what they get.
  adminToo = false,
): Principal | undefined => {
  const secret = secretFrom(authorization)
  const session = secret === undefined && access !== 'client' && access !== 'frontend' ? cookieValue(cookie(), sessionCookie) : undefined
  const principal =
    secret !== undefined ? authenticator.byToken(secret) : session !== undefined ? authenticator.bySession(session) : undefined
  if (access === 'public') return principal
  if (access === 'admin') {
    if (secret === undefined && session === undefined) {
      throw new DomainError(
        'AuthenticationRequired',
        'You must log in to use Unleash. Your request had no authorization header, so we could not authorize you. Try logging in at /auth/simple/login',
        undefined,
        { path: '/auth/simple/login', type: 'password', defaultHidden: false },
      )
    }
    // Unleash: a credential that names no one is an UnauthorizedError (SEMANTICS 7.3).
    if (!principal) throw new DomainError('UnauthorizedError', 'You must log in to use Unleash.', undefined, { path: '/auth/simple/login', type: 'password' })
    if (principal.kind !== 'admin' && principal.kind !== 'user') throw new DomainError('NoAccessError', wrongTokenType)
    return principal
  }
  if (!principal) throw new DomainError('AuthenticationRequired', apiTokenRequired)
  if (principal.kind !== access && !(adminToo && principal.kind === 'admin')) throw new DomainError('NoAccessError', wrongTokenType)
  return principal
}

export const permissionDenied = (permissions: string[], environment?: string): DomainError => {
  const named = permissions.length === 1 ? `the "${permissions[0]}" permission` : `one of the following permissions: ${permissions.map((p) => `"${p}"`).join(', ')}`
  const where = environment ? ` in the "${environment}" environment` : ''
  const message = `You don't have the required permissions to perform this operation. To perform this action, you need ${named}${where}.`
  return new DomainError('PermissionError', message, [{ message }], { permissions })
}

export const authorize = (principal: Principal | undefined, permission: string | string[], project?: string, environment?: string): void => {
  const permissions = Array.isArray(permission) ? permission : [permission]
  if (principal && permissions.some((p) => principal.can(p, project, environment))) return
  throw permissionDenied(permissions, environment)
}

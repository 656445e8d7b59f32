import { DomainError } from '../domain/errors.js'
import type { Access, Principal, TokenLookup } from './types.js'

const apiTokenRequired = 'This endpoint requires an API token. Please add an authorization header to your request with a valid token'
const wrongTokenType = 'invalid token: expected a different token type for this endpoint'

const secretFrom = (header: string | undefined): string | undefined => {
  if (header === undefined) return undefined
  const trimmed = header.trim()
  const secret = /^bearer\s+/i.test(trimmed) ? trimmed.replace(/^bearer\s+/i, '') : trimmed
  return secret.length > 0 ? secret : undefined
}

// Unleash answers each family of paths with its own 401/403 wording; SDKs only read the status.
export const authenticate = (access: Access, header: string | undefined, lookup: TokenLookup): Principal | undefined => {
  const secret = secretFrom(header)
  const principal = secret === undefined ? undefined : lookup(secret)
  if (access === 'public') return principal
  if (access === 'admin') {
    if (secret === undefined) {
      throw new DomainError(
        'AuthenticationRequired',
        'You must log in to use Unleash. Your request had no authorization header, so we could not authorize you. Try logging in at /auth/simple/login',
        undefined,
        { path: '/auth/simple/login', type: 'password', defaultHidden: false },
      )
    }
    if (!principal) throw new DomainError('AuthenticationRequired', 'You must log in to use Unleash.')
    if (principal.kind !== 'admin') throw new DomainError('NoAccessError', wrongTokenType)
    return principal
  }
  if (!principal) throw new DomainError('AuthenticationRequired', apiTokenRequired)
  if (principal.kind !== access) throw new DomainError('NoAccessError', wrongTokenType)
  return principal
}

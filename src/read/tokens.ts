import type { ApiToken, InstanceState } from '../domain/instance-state.js'
import type { Principal } from '../http/types.js'

export interface TokenSource {
  instance(): InstanceState
  projectExists(id: string): boolean
}

interface Entry {
  principal: Principal
  expiresAtMs: number
}

const kindOf = (type: ApiToken['type']): Principal['kind'] => (type === 'backend' ? 'client' : type)

// Looks secrets up in the committed token set: a deleted or expired token fails on the very next request.
export const tokenLookup = (source: TokenSource) => {
  const entries = new WeakMap<ApiToken, Entry>()
  return (secret: string): Principal | undefined => {
    const token = source.instance().apiTokens.get(secret)
    if (!token) return undefined
    let entry = entries.get(token)
    if (!entry) {
      entry = {
        principal: {
          kind: kindOf(token.type),
          name: token.tokenName,
          userId: null,
          projects: token.projects,
          environment: token.environment,
          secret: token.secret,
        },
        expiresAtMs: token.expiresAt ? Date.parse(token.expiresAt) : Number.POSITIVE_INFINITY,
      }
      entries.set(token, entry)
    }
    if (Date.now() >= entry.expiresAtMs) return undefined
    const projects = entry.principal.projects
    if (!projects.includes('*') && !projects.some((p) => source.projectExists(p))) return undefined
    return entry.principal
  }
}

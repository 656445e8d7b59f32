import { hashTokenSecret } from '../domain/api-tokens.js'
import type { ApiToken, InstanceState } from '../domain/instance-state.js'
import type { Pat, User } from '../domain/people-state.js'
import type { ProjectState } from '../domain/project-state.js'
import type { Authenticator, Principal } from '../http/types.js'
import { userCan } from './permissions.js'
import { hashPatSecret, type Sessions } from '../sign-in/sessions.js'

export interface AuthSource {
  instance(): InstanceState
  project(id: string): ProjectState | undefined
  sessions: Sessions
  // An API token authenticated a request (its secret's hash, an ISO time): "last seen" in token listings.
  tokenSeen?: (secretHash: string, at: string) => void
}

interface Entry {
  principal: Principal
  secretHash: string
  expiresAtMs: number
  // Noted as seen less than a second ago: a timer clears it.
  noted: boolean
}

// A token is noted as seen at most once a second: SDK polls must not pay for a Date string each, nor
// read the clock (a token without an expiry never needs it otherwise).
const seenResolutionMs = 1000

const kindOf = (type: ApiToken['type']): Principal['kind'] => (type === 'backend' ? 'client' : type)
const everything = () => true
const nothing = () => false

// Every lookup reads committed state: a deleted or expired credential fails on the very next request.
export const authenticator = (source: AuthSource): Authenticator => {
  const entries = new WeakMap<ApiToken, Entry>()
  const permissionSource = { people: () => source.instance().people, project: source.project }

  const userPrincipal = (user: User): Principal => ({
    kind: 'user',
    name: user.email ?? user.username ?? `user-${user.id}`,
    userId: user.id,
    projects: ['*'],
    environment: '*',
    can: userCan(permissionSource, user.id),
  })

  const activeUser = (id: number): User | undefined => {
    const user = source.instance().people.users.get(id)
    return user && !user.deleted ? user : undefined
  }

  const byPat = (secret: string): Principal | undefined => {
    const hash = hashPatSecret(secret)
    let pat: Pat | undefined
    for (const candidate of source.instance().people.pats.values()) if (candidate.secretHash === hash) pat = candidate
    if (!pat || Date.parse(pat.expiresAt) <= Date.now()) return undefined
    const user = activeUser(pat.userId)
    return user && userPrincipal(user)
  }

  // SDKs present the same few secrets on every poll: their hashes are remembered, in a bounded map.
  const hashes = new Map<string, string>()
  const hashOf = (secret: string): string => {
    let hash = hashes.get(secret)
    if (hash === undefined) {
      if (hashes.size >= 10_000) hashes.clear()
      hash = hashTokenSecret(secret)
      hashes.set(secret, hash)
    }
    return hash
  }

  const entryOf = (token: ApiToken): Entry => {
    let entry = entries.get(token)
    if (!entry) {
      entry = {
        principal: {
          kind: kindOf(token.type),
          name: token.tokenName,
          userId: null,
          projects: token.projects,
          environment: token.environment,
          can: token.type === 'admin' ? everything : nothing,
        },
        secretHash: token.secretHash,
        expiresAtMs: token.expiresAt ? Date.parse(token.expiresAt) : Number.POSITIVE_INFINITY,
        noted: false,
      }
      entries.set(token, entry)
    }
    return entry
  }

  // The last secret's token (its entry), found in the last instance state: while the state is the same
  // object, no token was added, changed or deleted (a change commits a new state), so it is not looked up
  // again. Comparing a fresh header string with the last secret is cheaper than hashing it for a map.
  let lastInstance: InstanceState | undefined
  let lastTokenSecret = ''
  let lastEntry: Entry | undefined
  const entryFor = (secret: string): Entry | undefined => {
    const instance = source.instance()
    if (instance === lastInstance && secret === lastTokenSecret) return lastEntry
    const token = instance.apiTokens.get(hashOf(secret))
    lastEntry = token && entryOf(token)
    lastInstance = instance
    lastTokenSecret = secret
    return lastEntry
  }

  const byApiToken = (secret: string): Principal | undefined => {
    const entry = entryFor(secret)
    if (!entry) return undefined
    if (entry.expiresAtMs !== Number.POSITIVE_INFINITY && Date.now() >= entry.expiresAtMs) return undefined
    const projects = entry.principal.projects
    if (!projects.includes('*') && !projects.some((p) => source.project(p) !== undefined)) return undefined
    if (source.tokenSeen && !entry.noted) {
      const noted = entry
      noted.noted = true
      source.tokenSeen(noted.secretHash, new Date().toISOString())
      setTimeout(() => {
        noted.noted = false
      }, seenResolutionMs).unref()
    }
    return entry.principal
  }

  return {
    byToken: (secret) => (secret.startsWith('user:') ? byPat(secret) : byApiToken(secret)),
    bySession: (sessionId) => {
      const userId = source.sessions.userOf(sessionId)
      const user = userId === undefined ? undefined : activeUser(userId)
      return user && userPrincipal(user)
    },
  }
}

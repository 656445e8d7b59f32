import { limits } from './limits.js'
import { createHash } from 'node:crypto'
import type { CreateApiToken } from '../schemas/api-tokens.js'
import { DomainError, badData, fail, nameExists, ok, type Result } from './errors.js'
import type { PublicToken } from './event-data.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { ApiToken, InstanceState } from './instance-state.js'

export const defaultEnvironment = 'development'

export interface ApiTokenWorld {
  projectExists: (id: string) => boolean
}

// Unleash's secret format: the scope reads from the prefix, the stored record is what counts.
export const tokenSecret = (type: ApiToken['type'], projects: string[], environment: string, random: string): string => {
  if (type === 'admin') return `*:*.${random}`
  const projectPart = projects.length > 1 ? '[]' : projects[0]
  return `${projectPart}:${environment}.${random}`
}

// Secrets are kept only as SHA-256 (state, snapshots, log): the plain secret is shown once, at creation.
export const hashTokenSecret = (secret: string): string => createHash('sha256').update(secret).digest('hex')

// What a listing shows: the scope and the first characters of the random part, enough to tell tokens apart.
export const maskTokenSecret = (secret: string): string => {
  const dot = secret.indexOf('.')
  const random = secret.slice(dot + 1)
  return `${secret.slice(0, dot + 1)}${random.slice(0, Math.min(8, Math.floor(random.length / 2)))}…`
}

const scopeOf = (input: CreateApiToken) => {
  const isAdmin = input.type === 'admin'
  const environment = isAdmin ? '*' : input.environment ?? defaultEnvironment
  const requested = isAdmin ? ['*'] : input.projects ?? ['*']
  const projects = requested.includes('*') ? ['*'] : [...new Set(requested)]
  return { environment, projects }
}

// The secret a create command makes: the caller's own, or one from its random part and the scope.
export const newTokenSecret = (input: CreateApiToken, random: string): string => {
  const { environment, projects } = scopeOf(input)
  return input.secret ?? tokenSecret(input.type, projects, environment, random)
}

export const publicToken = (token: ApiToken): PublicToken => ({
  tokenName: token.tokenName,
  type: token.type,
  environment: token.environment,
  project: token.projects.join(','),
  projects: token.projects,
  expiresAt: token.expiresAt,
  createdAt: token.createdAt,
  alias: null,
})

// `random`: the random part of a secret made here (the caller's own secret is kept).
export type CreateApiTokenCommand = { type: 'apiToken.create'; input: CreateApiToken; random: string; world: ApiTokenWorld; meta: CommandMeta }

export const decideCreateApiToken = (state: InstanceState, { input, random, world, meta }: CreateApiTokenCommand): Result<EventDraft[]> => {
  const tokenName = input.tokenName ?? input.username
  if (!tokenName) return fail(badData('"tokenName" is required'))
  if (state.apiTokens.size >= limits.apiTokens) {
    return fail(new DomainError('ExceedsLimitError', `Failed to create api token. You can't create more than the established limit of ${limits.apiTokens}.`))
  }
  const type = input.type
  const isAdmin = type === 'admin'
  const { environment, projects } = scopeOf(input)
  if (!isAdmin && environment === '*') {
    return fail(badData(type === 'frontend' ? 'Frontend token cannot be scoped to all environments' : 'Client token cannot be scoped to all environments'))
  }
  if (!isAdmin && !state.environments.has(environment)) return fail(badData(`Environment=${environment} does not exist`))
  for (const project of projects) {
    if (project !== '*' && !world.projectExists(project)) return fail(badData(`Project=${project} does not exist`))
  }
  const secret = newTokenSecret(input, random)
  const secretHash = hashTokenSecret(secret)
  if (state.apiTokens.has(secretHash)) return fail(nameExists('An API token with that secret already exists'))
  if (input.expiresAt && Date.parse(input.expiresAt) <= Date.parse(meta.now)) return fail(badData('"expiresAt" must be in the future'))
  const token: ApiToken = {
    secretHash,
    maskedSecret: maskTokenSecret(secret),
    tokenName,
    type,
    environment,
    projects,
    expiresAt: input.expiresAt ? new Date(input.expiresAt).toISOString() : null,
    createdAt: meta.now,
  }
  return ok([
    draft(meta, 'api-token-created', {
      project: token.projects.join(','),
      environment: token.environment,
      data: publicToken(token),
      hidden: { secretHash, maskedSecret: token.maskedSecret },
    }),
  ])
}

export const decideUpdateApiToken = (state: InstanceState, secretHash: string, expiresAt: string, meta: CommandMeta): Result<EventDraft[]> => {
  const token = state.apiTokens.get(secretHash)
  // Unleash: updating an unknown token answers 200 and changes nothing.
  if (!token) return ok([])
  const next = { ...token, expiresAt: new Date(expiresAt).toISOString() }
  if (next.expiresAt === token.expiresAt) return ok([])
  return ok([
    draft(meta, 'api-token-updated', {
      project: token.projects.join(','),
      environment: token.environment,
      data: publicToken(next),
      preData: publicToken(token),
      hidden: { secretHash, maskedSecret: token.maskedSecret },
    }),
  ])
}

export const decideDeleteApiToken = (state: InstanceState, secretHash: string, meta: CommandMeta): Result<EventDraft[]> => {
  const token = state.apiTokens.get(secretHash)
  if (!token) return ok([])
  return ok([
    draft(meta, 'api-token-deleted', {
      project: token.projects.join(','),
      environment: token.environment,
      preData: publicToken(token),
      hidden: { secretHash, maskedSecret: token.maskedSecret },
    }),
  ])
}

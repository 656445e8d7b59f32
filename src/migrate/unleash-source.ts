// What a running Unleash shows an admin token through its public admin API (checked against 8.2):
// the shapes below are the fields of its answers that a migration copies, as Unleash spells them.

export interface SourceEnvironment {
  name: string
  type: string
  enabled: boolean
  sortOrder: number
}

export interface SourceStrategy {
  id: string
  name: string
  title?: string | null
  disabled?: boolean | null
  sortOrder?: number
  constraints?: unknown[]
  parameters?: Record<string, unknown>
  segments?: number[]
  variants?: unknown[]
}

export interface SourceFlagEnvironment {
  name: string
  enabled: boolean
  strategies: SourceStrategy[]
  variants?: unknown[]
}

export interface SourceFlag {
  name: string
  project: string
  type: string
  description?: string | null
  impressionData?: boolean
  stale?: boolean
  archived?: boolean
  environments: SourceFlagEnvironment[]
  dependencies?: { feature: string; enabled?: boolean; variants?: string[] }[]
  tags: { type: string; value: string }[]
}

export interface SourceProject {
  id: string
  name: string
  description?: string | null
  mode?: string
  defaultStickiness?: string
  featureLimit?: number | null
  featureNaming?: { pattern?: string | null; example?: string | null; description?: string | null }
  environments: string[]
}

export interface SourceToken {
  secret: string
  tokenName: string
  type: string
  environment: string
  projects: string[]
  expiresAt?: string | null
}

export interface SourceUser {
  id: number
  username?: string | null
  email?: string | null
  name?: string | null
  rootRole: number
}

export interface SourceStrategyType {
  name: string
  displayName?: string | null
  title?: string | null
  description?: string | null
  editable?: boolean
  deprecated?: boolean
  parameters?: { name: string; type: string; description?: string; required?: boolean }[]
}

// Everything read, and what could not be read or will not be copied (an Enterprise-only endpoint, a
// token without the right, groups), with the reason.
export interface SourceData {
  url: string
  version: string | null
  environments: SourceEnvironment[]
  projects: SourceProject[]
  contextFields: Record<string, unknown>[]
  segments: { id: number; name: string; description?: string | null; project?: string | null; constraints: unknown[] }[]
  tagTypes: { name: string; description?: string | null; icon?: string | null; color?: string | null }[]
  tags: { type: string; value: string }[]
  strategyTypes: SourceStrategyType[]
  featureTypes: { id: string; lifetimeDays: number | null }[]
  flags: SourceFlag[]
  apiTokens: SourceToken[]
  users: SourceUser[]
  unread: { what: string; why: string }[]
}

export interface SourceOptions {
  url: string
  token: string
  // Requests in flight at once while reading flags.
  concurrency?: number
  progress?: (line: string) => void
  fetch?: typeof fetch
}

class SourceError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message)
  }
}

export const inParallel = async <T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length)
  let next = 0
  const lane = async () => {
    while (next < items.length) {
      const i = next++
      results[i] = await fn(items[i])
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane))
  return results
}

const archivedPage = 500

interface ExportAnswer {
  features: { name: string; project: string; type: string; description?: string | null; impressionData?: boolean; stale?: boolean }[]
  featureStrategies: (SourceStrategy & { featureName: string })[]
  featureEnvironments: { featureName: string; environment: string; enabled: boolean; variants?: unknown[] }[]
  featureTags: { featureName: string; tagType?: string; tagValue?: string; type?: string; value?: string }[]
  dependencies: { feature: string; dependencies: { feature: string; enabled?: boolean; variants?: string[] }[] }[]
}

const readArchived = async (
  names: { project: string; name: string }[],
  environments: SourceEnvironment[],
  get: <T>(path: string, body?: unknown) => Promise<T>,
): Promise<SourceFlag[]> => {
  if (names.length === 0) return []
  const flags = new Map<string, SourceFlag>()
  for (const environment of environments) {
    const answer = await get<ExportAnswer>('/api/admin/features-batch/export', { features: names.map((n) => n.name), environment: environment.name })
    for (const f of answer.features) {
      const flag = flags.get(f.name) ?? { ...f, archived: true, environments: [], tags: [], dependencies: [] }
      flags.set(f.name, flag)
      const state = answer.featureEnvironments.find((fe) => fe.featureName === f.name)
      // The export lists a flag's strategies in their order; it leaves out sortOrder.
      const strategies = answer.featureStrategies.filter((s) => s.featureName === f.name).map(({ featureName: _, ...s }, i) => ({ ...s, sortOrder: s.sortOrder ?? i }))
      flag.environments.push({ name: environment.name, enabled: state?.enabled ?? false, strategies, variants: state?.variants ?? [] })
      flag.tags = answer.featureTags.filter((t) => t.featureName === f.name).map((t) => ({ type: t.tagType ?? t.type ?? 'simple', value: t.tagValue ?? t.value ?? '' }))
      flag.dependencies = answer.dependencies.find((d) => d.feature === f.name)?.dependencies ?? []
    }
  }
  return [...flags.values()]
}

export const readUnleash = async (options: SourceOptions): Promise<SourceData> => {
  const base = options.url.replace(/\/+$/, '')
  const say = options.progress ?? (() => undefined)
  const fetcher = options.fetch ?? fetch
  const unread: SourceData['unread'] = []
  // A body makes it a POST: the export is read with one.
  const get = async <T>(path: string, body?: unknown): Promise<T> => {
    const headers = { authorization: options.token, accept: 'application/json', ...(body !== undefined && { 'content-type': 'application/json' }) }
    const response = await fetcher(`${base}${path}`, body === undefined ? { headers } : { method: 'POST', headers, body: JSON.stringify(body) })
    const text = await response.text()
    if (!response.ok) throw new SourceError(`${body === undefined ? 'GET' : 'POST'} ${path}: ${response.status} ${text.slice(0, 300)}`, response.status)
    return JSON.parse(text) as T
  }
  // An endpoint this Unleash lacks (404: Enterprise-only, or older) is reported, not fatal.
  const optional = async <T>(what: string, path: string, fallback: T): Promise<T> => {
    try {
      return await get<T>(path)
    } catch (error) {
      if (!(error instanceof SourceError) || (error.status !== 404 && error.status !== 403)) throw error
      unread.push({ what, why: `not readable: ${path} answered ${error.status}${error.status === 404 ? ' (an Enterprise feature, or not in this version)' : ''}` })
      return fallback
    }
  }
  const e = encodeURIComponent

  say(`reading ${base}: instance`)
  const version = (await optional<{ version?: string }>('version', '/api/admin/ui-config', {})).version ?? null
  const environments = (await get<{ environments: SourceEnvironment[] }>('/api/admin/environments')).environments
  const listedProjects = (await get<{ projects: { id: string }[] }>('/api/admin/projects')).projects
  const projects = await inParallel(listedProjects, 4, async ({ id }) => {
    const overview = await get<Omit<SourceProject, 'id' | 'environments'> & { environments: { environment: string }[] }>(`/api/admin/projects/${e(id)}/overview`)
    return { ...overview, id, environments: overview.environments.map((env) => env.environment) }
  })
  const contextFields = await get<Record<string, unknown>[]>('/api/admin/context')
  const segments = (await optional<{ segments: SourceData['segments'] }>('segments', '/api/admin/segments', { segments: [] })).segments
  const tagTypes = (await get<{ tagTypes: SourceData['tagTypes'] }>('/api/admin/tag-types')).tagTypes
  const tags = (await get<{ tags: SourceData['tags'] }>('/api/admin/tags')).tags
  const strategyTypes = (await get<{ strategies: SourceStrategyType[] }>('/api/admin/strategies')).strategies
  const featureTypes = (await optional<{ types: SourceData['featureTypes'] }>('feature types', '/api/admin/feature-types', { types: [] })).types
  say(`read ${environments.length} environments, ${projects.length} projects, ${contextFields.length} context fields, ${segments.length} segments, ${tagTypes.length} tag types, ${tags.length} tags, ${strategyTypes.length} strategy types`)

  const names: { project: string; name: string }[] = []
  const archivedNames: { project: string; name: string }[] = []
  for (const project of projects) {
    const active = await get<{ features: { name: string }[] }>(`/api/admin/projects/${e(project.id)}/features`)
    names.push(...active.features.map((f) => ({ project: project.id, name: f.name })))
    for (let offset = 0; ; offset += archivedPage) {
      const page = await get<{ features: { name: string }[]; total: number }>(
        `/api/admin/search/features?project=${e(`IS:${project.id}`)}&archived=${e('IS:true')}&limit=${archivedPage}&offset=${offset}`,
      )
      archivedNames.push(...page.features.map((f) => ({ project: project.id, name: f.name })))
      if (page.features.length < archivedPage) break
    }
  }
  say(`reading ${names.length} flags and ${archivedNames.length} archived ones`)
  let read = 0
  const flags: SourceFlag[] = await inParallel(names, options.concurrency ?? 8, async ({ project, name }) => {
    const flag = await get<Omit<SourceFlag, 'tags'>>(`/api/admin/projects/${e(project)}/features/${e(name)}`)
    const { tags: flagTags } = await get<{ tags: SourceFlag['tags'] }>(`/api/admin/features/${e(name)}/tags`)
    if (++read % 250 === 0 || read === names.length) say(`read ${read} of ${names.length} flags`)
    return { ...flag, project, tags: flagTags }
  })
  // An archived flag is not served by the flag endpoint; the export shows it, one environment at a time.
  for (let start = 0; start < archivedNames.length; start += archivedPage) {
    flags.push(...(await readArchived(archivedNames.slice(start, start + archivedPage), environments, get)))
  }

  const apiTokens = (await optional<{ tokens: SourceToken[] }>('API tokens', '/api/admin/api-tokens', { tokens: [] })).tokens
  const users = (await optional<{ users: SourceUser[] }>('users', '/api/admin/user-admin', { users: [] })).users
  // Groups (Enterprise) name users by Unleash's ids; they are read to be reported, not copied.
  const groups = (await optional<{ groups: { name: string }[] }>('groups', '/api/admin/groups', { groups: [] })).groups
  for (const group of groups) unread.push({ what: 'groups', why: `group ${group.name}: groups are not copied; re-create it and its members here` })
  say(`read ${apiTokens.length} API tokens, ${users.length} users`)
  return { url: base, version, environments, projects, contextFields, segments, tagTypes, tags, strategyTypes, featureTypes, flags, apiTokens, users, unread }
}

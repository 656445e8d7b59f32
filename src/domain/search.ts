import type { EventSearchQuery, FeatureSearchQuery } from '../schemas/search.js'
import type { Tag } from '../schemas/shared.js'
import { likePrefixMatcher } from './like-prefix.js'

// What GET /api/admin/search/features and /api/admin/search/events mean by their query strings, after
// src/schemas/search.ts has checked them: Unleash 8.2's grammar `OPERATOR:value[,value…]` and what each
// filter keeps. Everything here follows Unleash's SQL (features/feature-search and features/events in
// its source), including where that SQL shows through (noted at each place).

export const searchOperators = [
  'IS', 'IS_NOT', 'IS_ANY_OF', 'IS_NONE_OF',
  'INCLUDE', 'DO_NOT_INCLUDE', 'INCLUDE_ALL_OF', 'INCLUDE_ANY_OF', 'EXCLUDE_IF_ANY_OF', 'EXCLUDE_ALL',
  'IS_BEFORE', 'IS_ON_OR_AFTER',
] as const
export type SearchOperator = (typeof searchOperators)[number]

export interface OperatorFilter<T = string> {
  operator: SearchOperator
  values: T[]
}

const grammar = new RegExp(`^(${searchOperators.join('|')}):(.+)$`)

// `IS:a, b` → IS [a, b]. Nothing after the colon is no filter at all (Unleash ignores `type=IS:`); an
// empty value stays (`IS:a,` lists a and the empty string).
export const parseOperatorValue = (text: string | undefined): OperatorFilter | undefined => {
  const match = text === undefined ? null : grammar.exec(text)
  return match ? { operator: match[1] as SearchOperator, values: match[2].split(',').map((value) => value.trim()) } : undefined
}

const isExclusion = (operator: SearchOperator) => operator === 'IS_NOT' || operator === 'IS_NONE_OF'

// IS and IS_ANY_OF keep the listed values, IS_NOT and IS_NONE_OF the others. A missing value (SQL NULL)
// is kept by neither.
export const matchesValue = <T>(filter: OperatorFilter<T> | undefined, value: T | null): boolean => {
  if (!filter) return true
  if (value === null) return false
  const listed = filter.values.includes(value)
  return isExclusion(filter.operator) ? !listed : listed
}

// ILIKE '%term%' on the name or the description, for any of the comma-separated terms: `%` and `_` are
// wildcards and a backslash escapes, as in SQL.
export const searchTerms = (query: string | undefined): string[] =>
  (query ?? '')
    .split(',')
    .map((term) => term.trim())
    .filter((term) => term.length > 0)

// Matchers over texts already lower-cased (the search index keeps them so).
export const containsMatcher = (term: string): ((lowerText: string) => boolean) => {
  const lower = term.toLowerCase()
  if (!/[%_\\]/.test(lower)) return (text) => text.includes(lower)
  return likePrefixMatcher(`%${lower}`)
}

// The description is lower-cased here, and only when the name does not match: a lower-cased copy of every
// description kept for searches was 2.8 MiB at 50,000 flags (issue 26); lower-casing them costs a text
// search 2-5 ms there (measured on 50,000 descriptions of 80 characters).
export const textMatcher = (terms: string[]): ((lowerName: string, description: string | null) => boolean) => {
  const matchers = terms.map(containsMatcher)
  if (matchers.length === 1) {
    const [matches] = matchers
    return (name, description) => matches(name) || (description !== null && matches(description.toLowerCase()))
  }
  return (name, description) => {
    if (matchers.some((m) => m(name))) return true
    if (description === null) return false
    const lower = description.toLowerCase()
    return matchers.some((m) => m(lower))
  }
}

// state: `active` means not stale and any other word stale, unless `potentially-stale` is listed: then
// Unleash's special cases for it.
export const stateMatcher = (filter: OperatorFilter | undefined): ((f: { stale: boolean; potentiallyStale?: boolean }) => boolean) => {
  if (!filter) return () => true
  const exclude = isExclusion(filter.operator)
  const { values } = filter
  if (!values.includes('potentially-stale')) {
    const staleValues = values.map((value) => value !== 'active')
    return (f) => (exclude ? !staleValues.includes(f.stale) : staleValues.includes(f.stale))
  }
  const known = new Set(values.filter((value) => value === 'stale' || value === 'active' || value === 'potentially-stale'))
  const potentially = (f: { potentiallyStale?: boolean }) => f.potentiallyStale === true
  if (known.size === 3) return () => !exclude
  if (known.size === 1) return (f) => (exclude ? f.stale || !potentially(f) : !f.stale && potentially(f))
  if (known.has('stale')) return (f) => (exclude ? !f.stale && !potentially(f) : f.stale || potentially(f))
  return (f) => (exclude ? f.stale : !f.stale)
}

// lifecycle and archived together, as Unleash combines them: `archived` is a stage only in the
// lifecycle filter, where it means the archived flags whatever their stage.
export const lifecycleMatcher = (filter: OperatorFilter | undefined, archivedView: boolean): ((archived: boolean, stage: string) => boolean) => {
  if (!filter) return (archived) => archived === archivedView
  const includesArchived = filter.values.includes('archived')
  const stages = filter.values.filter((value) => value !== 'archived')
  if (isExclusion(filter.operator)) {
    // The exclusion is about the stages of active flags: the archived view is left as it is.
    if (archivedView && !includesArchived) return (archived) => archived
    return (archived, stage) => !archived && !stages.includes(stage)
  }
  if (archivedView) return (archived, stage) => archived && (includesArchived || stages.length === 0 || stages.includes(stage))
  return (archived, stage) => (archived ? includesArchived : stages.includes(stage))
}

export interface TagFilter {
  operator: SearchOperator
  tags: Tag[]
}

const tagOf = (text: string): Tag => {
  const at = text.indexOf(':')
  return { type: text.slice(0, at).trim(), value: text.slice(at + 1).trim() }
}

// The tags a flag is listed with when it is kept, or undefined when it is left out. INCLUDE and
// INCLUDE_ANY_OF filter Unleash's joined tag rows, so a flag found by a tag is listed with the matching
// tags only. INCLUDE_ALL_OF counts the flag's matching tags against the number listed (a tag listed
// twice is never all there), as Unleash's HAVING COUNT(*) does.
export const tagMatcher = (filter: TagFilter | undefined): ((tags: readonly Tag[]) => readonly Tag[] | undefined) => {
  if (!filter) return (tags) => tags
  const wanted = new Set(filter.tags.map((t) => `${t.type}:${t.value}`))
  const isWanted = (t: Tag) => wanted.has(`${t.type}:${t.value}`)
  const hasAll = (tags: readonly Tag[]) => tags.filter(isWanted).length === filter.tags.length
  switch (filter.operator) {
    case 'INCLUDE':
    case 'INCLUDE_ANY_OF':
      return (tags) => {
        const found = tags.filter(isWanted)
        return found.length > 0 ? found : undefined
      }
    case 'DO_NOT_INCLUDE':
    case 'EXCLUDE_IF_ANY_OF':
      return (tags) => (tags.some(isWanted) ? undefined : tags)
    case 'INCLUDE_ALL_OF':
      return (tags) => (hasAll(tags) ? tags : undefined)
    case 'EXCLUDE_ALL':
      return (tags) => (hasAll(tags) ? undefined : tags)
    default:
      return (tags) => tags
  }
}

// Segments are matched by name over every use of one by a strategy of the flag (any environment): the
// ALL_OF forms count those uses against the number of names listed, so a segment used by two strategies
// counts twice (Unleash's HAVING COUNT(*) over strategy-segment rows).
export const segmentMatcher = (filter: OperatorFilter | undefined): ((uses: readonly string[]) => boolean) => {
  if (!filter) return () => true
  const wanted = new Set(filter.values)
  const count = (uses: readonly string[]) => uses.filter((name) => wanted.has(name)).length
  switch (filter.operator) {
    case 'INCLUDE':
    case 'INCLUDE_ANY_OF':
      return (uses) => count(uses) > 0
    case 'DO_NOT_INCLUDE':
    case 'EXCLUDE_IF_ANY_OF':
      return (uses) => count(uses) === 0
    case 'INCLUDE_ALL_OF':
      return (uses) => count(uses) === filter.values.length
    case 'EXCLUDE_ALL':
      return (uses) => count(uses) !== filter.values.length
    default:
      return () => true
  }
}

export interface DayFilter {
  operator: 'IS_BEFORE' | 'IS_ON_OR_AFTER'
  // Midnight UTC of the day, in ms.
  at: number
}

const dayFilterOf = (text: string | undefined): DayFilter | undefined => {
  const parsed = parseOperatorValue(text)
  if (!parsed || (parsed.operator !== 'IS_BEFORE' && parsed.operator !== 'IS_ON_OR_AFTER')) return undefined
  return { operator: parsed.operator, at: Date.parse(`${parsed.values[0]}T00:00:00.000Z`) }
}

export const matchesDay = (filter: DayFilter | undefined, time: number | null): boolean => {
  if (!filter) return true
  if (time === null) return false
  return filter.operator === 'IS_BEFORE' ? time < filter.at : time >= filter.at
}

export interface EnvironmentStatus {
  environment: string
  enabled: boolean
}

export type FeatureSortBy = { by: 'createdAt' | 'name' | 'type' | 'stale' | 'project' | 'lastSeenAt' } | { by: 'environment'; environment: string }

const sortByOf = (sortBy: string | undefined): FeatureSortBy => {
  if (sortBy?.startsWith('environment:')) return { by: 'environment', environment: sortBy.split(':')[1] }
  if (sortBy === 'name' || sortBy === 'type' || sortBy === 'stale' || sortBy === 'project' || sortBy === 'lastSeenAt') return { by: sortBy }
  return { by: 'createdAt' }
}

// Unleash: a limit that is not a number in (0, max] is the default; an offset that is not above 0 is 0.
// Fractions are cut to whole numbers (Unleash's database fails on them in the flag search).
export const pageOf = (offset: string | undefined, limit: string | undefined, defaults: { limit: number; maxLimit: number }) => {
  const asked = Number(limit)
  const whole = Math.floor(asked)
  const from = Number(offset)
  return {
    limit: asked > 0 && asked <= defaults.maxLimit && whole > 0 ? whole : defaults.limit,
    offset: from > 0 ? Math.min(Math.floor(from), Number.MAX_SAFE_INTEGER) : 0,
  }
}

export interface FeatureSearch {
  terms: string[]
  project?: OperatorFilter
  type?: OperatorFilter
  createdBy?: OperatorFilter<number>
  state?: OperatorFilter
  lifecycle?: OperatorFilter
  tag?: TagFilter
  segment?: OperatorFilter
  createdAt?: DayFilter
  lastSeenAt?: DayFilter
  // Only favorites (true), only the others (false), or both (undefined).
  favorite?: boolean
  // Environments kept by their on/off status; empty: all.
  status: EnvironmentStatus[]
  archived: boolean
  favoritesFirst: boolean
  sortBy: FeatureSortBy
  sortOrder: 'asc' | 'desc'
  offset: number
  limit: number
}

const favoriteOf = (text: string | undefined): boolean | undefined => {
  const parsed = parseOperatorValue(text)
  if (!parsed) return undefined
  const wantsTrue = parsed.values.includes('true')
  const wantsFalse = parsed.values.includes('false')
  return wantsTrue === wantsFalse ? undefined : wantsTrue
}

// `production:enabled`: an environment and enabled or disabled; anything else is dropped.
const statusOf = (entries: string[] | undefined): EnvironmentStatus[] =>
  (entries ?? [])
    .map((entry) => entry.split(':'))
    .filter((parts) => parts.length === 2 && (parts[1] === 'enabled' || parts[1] === 'disabled'))
    .map(([environment, status]) => ({ environment, enabled: status === 'enabled' }))

export const featureSearchOf = (query: FeatureSearchQuery): FeatureSearch => {
  const createdBy = parseOperatorValue(query.createdBy)
  const tag = parseOperatorValue(query.tag)
  return {
    terms: searchTerms(query.query),
    project: parseOperatorValue(query.project),
    type: parseOperatorValue(query.type),
    createdBy: createdBy && { operator: createdBy.operator, values: createdBy.values.map((value) => (value === '' ? Number.NaN : Number(value))) },
    state: parseOperatorValue(query.state),
    lifecycle: parseOperatorValue(query.lifecycle),
    tag: tag && { operator: tag.operator, tags: tag.values.map(tagOf) },
    segment: parseOperatorValue(query.segment),
    createdAt: dayFilterOf(query.createdAt),
    lastSeenAt: dayFilterOf(query.lastSeenAt),
    favorite: favoriteOf(query.favorite),
    status: statusOf(query.status),
    archived: query.archived === 'IS:true',
    favoritesFirst: query.favoritesFirst === 'true',
    sortBy: sortByOf(query.sortBy),
    sortOrder: query.sortOrder ?? 'asc',
    ...pageOf(query.offset, query.limit, { limit: 50, maxLimit: 100 }),
  }
}

export interface EventSearch {
  query?: string
  ids?: number[]
  groupIds?: string[]
  features?: string[]
  projects?: string[]
  types?: string[]
  createdByUserIds?: number[]
  environments?: string[]
  // createdAt >= from and < to, in ms.
  from?: number
  to?: number
  offset: number
  limit: number
}

const dayStart = (text: string | undefined): number | undefined => {
  const parsed = parseOperatorValue(text)
  return parsed && Date.parse(`${parsed.values[0]}T00:00:00.000Z`)
}

const oneDay = 24 * 60 * 60 * 1000

// Every event filter lists values to keep (its operators are IS and IS_ANY_OF); `to` is inclusive of its
// day (Unleash adds a day and keeps what is before it).
export const eventSearchOf = (query: EventSearchQuery): EventSearch => {
  const values = (text: string | undefined) => parseOperatorValue(text)?.values
  const numbers = (text: string | undefined) => values(text)?.map((value) => (value === '' ? Number.NaN : Number(value)))
  const to = dayStart(query.to)
  return {
    query: query.query === '' ? undefined : query.query,
    ids: numbers(query.id),
    groupIds: values(query.groupId),
    features: values(query.feature),
    projects: values(query.project),
    types: values(query.type),
    createdByUserIds: numbers(query.createdBy),
    environments: values(query.environment),
    from: dayStart(query.from),
    to: to === undefined ? undefined : to + oneDay,
    ...pageOf(query.offset, query.limit, { limit: 50, maxLimit: 1000 }),
  }
}

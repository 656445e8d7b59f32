import * as v from 'valibot'

// The query strings of GET /api/admin/search/features and /api/admin/search/events, checked as Unleash 8.2
// checks them: its OpenAPI parameters carry these patterns and its validator answers 400 when one does
// not match, when a parameter is repeated (it then arrives as an array) or when sortOrder is neither asc
// nor desc; anything else is accepted and interpreted (src/domain/search.ts). Where Unleash's database
// then fails (a date like 2024-13-45, a user id that is not a number, a tag without a colon) it answers
// 500; these schemas refuse such values with a 400 instead.

const sent = (input: unknown) => JSON.stringify(input)

const text = (name: string) => v.string((issue) => `The \`/query/${name}\` property must be string. You sent ${sent(issue.input)}.`)

const matching = (name: string, pattern: RegExp, shown: string) =>
  v.regex(pattern, (issue) => `The \`/query/${name}\` property must match pattern "${shown}". You sent ${sent(issue.input)}.`)

// A parameter given once, matching Unleash's pattern (`shown` is the pattern as its OpenAPI document has it).
const patterned = (name: string, pattern: RegExp, shown: string) => v.optional(v.pipe(text(name), matching(name, pattern, shown)))

const isOperators = 'IS|IS_NOT|IS_ANY_OF|IS_NONE_OF'
const includeOperators = 'INCLUDE|DO_NOT_INCLUDE|INCLUDE_ALL_OF|INCLUDE_ANY_OF|EXCLUDE_IF_ANY_OF|EXCLUDE_ALL'

// Unleash's `^(OPS):(.*?)(,([a-zA-Z0-9_]+))*$` accepts anything after the operator and its colon (but a
// line break); written here as what it accepts.
const operatorList = (name: string, operators: string, valueSet = 'a-zA-Z0-9_') =>
  patterned(name, new RegExp(`^(${operators}):.*$`), `^(${operators}):(.*?)(,([${valueSet}]+))*$`)

// A value list whose every value (trimmed) is a whole number, or nothing at all (an empty list: no filter).
const numbersAfter = (operators: string) => new RegExp(`^(${operators}):(\\s*|\\s*-?\\d+\\s*(,\\s*-?\\d+\\s*)*)$`)

const numberList = (name: string, operators: string, shown: string) =>
  v.optional(
    v.pipe(
      text(name),
      matching(name, new RegExp(`^(${operators}):.*$`), shown),
      v.regex(numbersAfter(operators), (issue) => `The \`/query/${name}\` property must list whole numbers after its operator. You sent ${sent(issue.input)}.`),
    ),
  )

// A real calendar day: 2024-02-30 matches Unleash's pattern but is no day (Unleash's database fails on it).
const isRealDay = (day: string): boolean => {
  const at = new Date(`${day}T00:00:00.000Z`)
  return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === day
}

const dayFilter = (name: string, operators: string) =>
  v.optional(
    v.pipe(
      text(name),
      matching(name, new RegExp(`^(${operators}):\\d{4}-\\d{2}-\\d{2}$`), `^(${operators}):\\d{4}-\\d{2}-\\d{2}$`),
      v.check((value) => isRealDay(value.slice(value.indexOf(':') + 1)), (issue) => `The \`/query/${name}\` property must hold a real date. You sent ${sent(issue.input)}.`),
    ),
  )

// Unleash's tag pattern, with each listed tag a `type:value` pair (a type, a colon, at least one character):
// its pattern lets `simple:a,b` through, and its database then fails on `b`.
const tagPattern = new RegExp(`^(${includeOperators}):([^:,]+:.+?)(,\\s*[^:,]+:.+?)*$`)
const tagFilter = v.optional(
  v.pipe(
    text('tag'),
    matching('tag', tagPattern, `^(${includeOperators}):([^:,]+:.+?)(,\\s*[^:,]+:.+?)*$`),
    v.check(
      (value) => value.slice(value.indexOf(':') + 1).split(',').every((tag) => /^[^:]+:./.test(tag)),
      (issue) => `The \`/query/tag\` property must list tags as type:value. You sent ${sent(issue.input)}.`,
    ),
  ),
)

export const featureSearchQuerySchema = v.object({
  query: v.optional(text('query')),
  project: operatorList('project', isOperators),
  state: operatorList('state', isOperators),
  lifecycle: operatorList('lifecycle', isOperators),
  type: operatorList('type', isOperators),
  createdBy: numberList('createdBy', isOperators, `^(${isOperators}):(.*?)(,([a-zA-Z0-9_]+))*$`),
  tag: tagFilter,
  segment: operatorList('segment', includeOperators),
  // Unleash declares it an array and refuses a single value with a 400 (its query parser gives a
  // string then); one value is taken here as a list of one.
  status: v.optional(v.array(text('status'))),
  offset: v.optional(text('offset')),
  limit: v.optional(text('limit')),
  sortBy: v.optional(text('sortBy')),
  sortOrder: v.optional(
    v.picklist(['asc', 'desc'], (issue) => `The \`sortOrder\` property must be equal to one of the allowed values: "asc", "desc". You provided ${sent(issue.input)}, which is not valid. Please use one of the allowed values instead.`),
  ),
  favoritesFirst: v.optional(text('favoritesFirst')),
  archived: patterned('archived', /^IS:(true|false)$/, '^IS:(true|false)$'),
  favorite: patterned('favorite', /^(IS|IS_ANY_OF):(true|false)(,(true|false))*$/, '^(IS|IS_ANY_OF):(true|false)(,(true|false))*$'),
  createdAt: dayFilter('createdAt', 'IS_BEFORE|IS_ON_OR_AFTER'),
  lastSeenAt: dayFilter('lastSeenAt', 'IS_BEFORE|IS_ON_OR_AFTER'),
})
export type FeatureSearchQuery = v.InferOutput<typeof featureSearchQuerySchema>

const anyOf = 'IS|IS_ANY_OF'

export const eventSearchQuerySchema = v.object({
  query: v.optional(text('query')),
  id: numberList('id', anyOf, `^(${anyOf}):(.*?)(,([0-9]+))*$`),
  groupId: operatorList('groupId', anyOf, '0-9'),
  feature: operatorList('feature', anyOf),
  project: operatorList('project', anyOf),
  type: operatorList('type', anyOf),
  createdBy: numberList('createdBy', anyOf, `^(${anyOf}):(.*?)(,([a-zA-Z0-9_]+))*$`),
  environment: operatorList('environment', anyOf),
  from: dayFilter('from', 'IS'),
  to: dayFilter('to', 'IS'),
  offset: v.optional(text('offset')),
  limit: v.optional(text('limit')),
})
export type EventSearchQuery = v.InferOutput<typeof eventSearchQuerySchema>

// Parameters named once arrive as strings, repeated ones as arrays (as Express gives them to Unleash);
// the listed ones always as arrays.
export const queryObject = (params: URLSearchParams, lists: readonly string[] = []): Record<string, string | string[]> => {
  const object: Record<string, string | string[]> = {}
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key)
    object[key] = values.length === 1 && !lists.includes(key) ? values[0] : values
  }
  return object
}

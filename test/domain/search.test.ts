import t from 'tap'
import * as v from 'valibot'
import {
  eventSearchOf,
  featureSearchOf,
  lifecycleMatcher,
  matchesDay,
  matchesValue,
  pageOf,
  parseOperatorValue,
  searchTerms,
  segmentMatcher,
  stateMatcher,
  tagMatcher,
  textMatcher,
} from '../../src/domain/search.js'
import { eventSearchQuerySchema, featureSearchQuerySchema, queryObject } from '../../src/schemas/search.js'

// The search grammar and what each filter keeps, as Unleash 8.2 reads them (its feature-search and
// event-search code, checked side by side against a running Unleash 8.2).

const featureQuery = (query: string) => v.safeParse(featureSearchQuerySchema, queryObject(new URLSearchParams(query), ['status']))
const eventQuery = (query: string) => v.safeParse(eventSearchQuerySchema, queryObject(new URLSearchParams(query)))
const features = (query: string) => {
  const parsed = featureQuery(query)
  if (!parsed.success) throw new Error(`${query}: ${parsed.issues[0].message}`)
  return featureSearchOf(parsed.output)
}

t.test('OPERATOR:values is split on commas and trimmed; nothing after the colon is no filter', async (t) => {
  t.same(parseOperatorValue('IS:default'), { operator: 'IS', values: ['default'] })
  t.same(parseOperatorValue('IS_ANY_OF:a, b ,c'), { operator: 'IS_ANY_OF', values: ['a', 'b', 'c'] })
  t.same(parseOperatorValue('IS_NONE_OF:a,'), { operator: 'IS_NONE_OF', values: ['a', ''] }, 'an empty value stays')
  t.same(parseOperatorValue('INCLUDE_ALL_OF:simple:a,simple:b'), { operator: 'INCLUDE_ALL_OF', values: ['simple:a', 'simple:b'] })
  t.same(parseOperatorValue('IS_ON_OR_AFTER:2024-01-02'), { operator: 'IS_ON_OR_AFTER', values: ['2024-01-02'] })
  t.equal(parseOperatorValue('IS:'), undefined)
  t.equal(parseOperatorValue('NOPE:x'), undefined)
  t.equal(parseOperatorValue('default'), undefined)
  t.equal(parseOperatorValue(undefined), undefined)
})

t.test('query terms: comma-separated, trimmed, empty ones dropped', async (t) => {
  t.same(searchTerms(' SRCH-A, srch-g ,'), ['SRCH-A', 'srch-g'])
  t.same(searchTerms(' , '), [])
  t.same(searchTerms(undefined), [])
})

t.test('a term is ILIKE %term% over the lower-cased name or description', async (t) => {
  const match = textMatcher(['checkout', 'srch_beta', 'a%z'])
  t.ok(match('x', 'new checkout page'))
  t.ok(match('x', 'New CheckOut page'), 'the description is lower-cased')
  t.ok(textMatcher(['Checkout'])('x', 'NEW CHECKOUT'), 'a single term too')
  t.notOk(textMatcher(['checkout'])('x', 'check out'))
  t.notOk(match('x', null))
  t.ok(match('srch-beta', null), '_ is any one character')
  t.notOk(match('srch-eta', null))
  t.ok(match('abcz', null), '% is any run')
  t.notOk(match('zbca', null))
  t.ok(textMatcher(['100\\%'])('100%', null), 'a backslash escapes')
  t.notOk(textMatcher(['100\\%'])('1000', null))
})

t.test('IS/IS_ANY_OF keep the listed values, IS_NOT/IS_NONE_OF the others, neither a missing one', async (t) => {
  t.ok(matchesValue({ operator: 'IS', values: ['a'] }, 'a'))
  t.notOk(matchesValue({ operator: 'IS_ANY_OF', values: ['a', 'b'] }, 'c'))
  t.ok(matchesValue({ operator: 'IS_NOT', values: ['a'] }, 'b'))
  t.notOk(matchesValue({ operator: 'IS_NONE_OF', values: ['a', 'b'] }, 'b'))
  t.notOk(matchesValue({ operator: 'IS_NOT', values: ['a'] }, null))
  t.ok(matchesValue(undefined, null))
})

t.test('state: active is not stale, any other word stale; potentially-stale has its own cases', async (t) => {
  const flags = { stale: { stale: true, potentiallyStale: false }, active: { stale: false, potentiallyStale: false }, potentially: { stale: false, potentiallyStale: true } }
  const kept = (value: string) => {
    const keep = stateMatcher(parseOperatorValue(value))
    return Object.entries(flags).filter(([, f]) => keep(f)).map(([name]) => name)
  }
  t.same(kept('IS:stale'), ['stale'])
  t.same(kept('IS:foo'), ['stale'], 'Unleash reads any word but active as stale')
  t.same(kept('IS:active'), ['active', 'potentially'])
  t.same(kept('IS_NOT:stale'), ['active', 'potentially'])
  t.same(kept('IS:potentially-stale'), ['potentially'])
  t.same(kept('IS_NOT:potentially-stale'), ['stale', 'active'])
  t.same(kept('IS_ANY_OF:stale,potentially-stale'), ['stale', 'potentially'])
  t.same(kept('IS_NONE_OF:stale,potentially-stale'), ['active'])
  t.same(kept('IS_ANY_OF:potentially-stale,active'), ['active', 'potentially'], 'with active: not stale')
  t.same(kept('IS_ANY_OF:stale,active,potentially-stale'), ['stale', 'active', 'potentially'])
  t.same(kept('IS_NONE_OF:stale,active,potentially-stale'), [])
})

t.test('lifecycle and archived: archived is a stage only in the lifecycle filter', async (t) => {
  const flags = { initial: { archived: false, stage: 'initial' }, completed: { archived: false, stage: 'completed' }, archived: { archived: true, stage: 'archived' } }
  const kept = (value: string | undefined, archivedView = false) => {
    const keep = lifecycleMatcher(parseOperatorValue(value), archivedView)
    return Object.entries(flags).filter(([, f]) => keep(f.archived, f.stage)).map(([name]) => name)
  }
  t.same(kept(undefined), ['initial', 'completed'])
  t.same(kept(undefined, true), ['archived'])
  t.same(kept('IS:completed'), ['completed'])
  t.same(kept('IS:archived'), ['archived'])
  t.same(kept('IS_ANY_OF:archived,completed'), ['completed', 'archived'])
  t.same(kept('IS_NOT:initial'), ['completed'])
  t.same(kept('IS_NONE_OF:completed,archived'), ['initial'])
  t.same(kept('IS:initial', true), [], 'the archived view narrowed to a stage archived flags are not in')
  t.same(kept('IS_NOT:initial', true), ['archived'], 'an exclusion leaves the archived view as it is')
  t.same(kept('IS_NOT:archived', true), ['initial', 'completed'], 'excluding archived lists the active flags, even in the archived view')
})

t.test('tags: INCLUDE lists only the matching tags; ALL_OF counts them against the number listed', async (t) => {
  const blue = { type: 'simple', value: 'blue' }
  const red = { type: 'simple', value: 'red' }
  const filter = (operator: string, ...tags: (typeof blue)[]) => tagMatcher({ operator: operator as 'INCLUDE', tags })
  t.same(filter('INCLUDE_ANY_OF', blue)([blue, red]), [blue])
  t.same(filter('INCLUDE', red, blue)([blue, red]), [blue, red])
  t.equal(filter('INCLUDE', blue)([red]), undefined)
  t.same(filter('INCLUDE_ALL_OF', blue, red)([blue, red]), [blue, red], 'kept with all its tags')
  t.equal(filter('INCLUDE_ALL_OF', blue, red)([blue]), undefined)
  t.equal(filter('INCLUDE_ALL_OF', blue, blue)([blue]), undefined, 'a tag listed twice is never all there')
  t.equal(filter('DO_NOT_INCLUDE', red)([blue, red]), undefined)
  t.same(filter('EXCLUDE_IF_ANY_OF', red)([blue]), [blue])
  t.equal(filter('EXCLUDE_ALL', blue, red)([blue, red]), undefined)
  t.same(filter('EXCLUDE_ALL', blue, red)([blue]), [blue])
  t.same(tagMatcher(undefined)([blue]), [blue])
})

t.test('segments: matched by name over every strategy that uses one', async (t) => {
  const filter = (value: string) => segmentMatcher(parseOperatorValue(value))
  t.ok(filter('INCLUDE:vip')(['vip', 'beta']))
  t.notOk(filter('INCLUDE_ANY_OF:x,y')(['vip']))
  t.ok(filter('DO_NOT_INCLUDE:x')(['vip']))
  t.ok(filter('INCLUDE_ALL_OF:vip,beta')(['beta', 'vip']))
  t.notOk(filter('INCLUDE_ALL_OF:vip,nope')(['vip']))
  t.ok(filter('INCLUDE_ALL_OF:vip,nope')(['vip', 'vip']), 'two strategies using vip count twice, as in Unleash')
  t.notOk(filter('EXCLUDE_ALL:vip,beta')(['vip', 'beta']))
  t.ok(filter('EXCLUDE_ALL:vip,nope')(['vip']))
})

t.test('days: IS_BEFORE is before midnight UTC of that day, IS_ON_OR_AFTER from it; never-seen matches neither', async (t) => {
  const at = Date.parse('2024-03-02T00:00:00.000Z')
  t.ok(matchesDay({ operator: 'IS_BEFORE', at }, at - 1))
  t.notOk(matchesDay({ operator: 'IS_BEFORE', at }, at))
  t.ok(matchesDay({ operator: 'IS_ON_OR_AFTER', at }, at))
  t.notOk(matchesDay({ operator: 'IS_ON_OR_AFTER', at }, null))
  t.notOk(matchesDay({ operator: 'IS_BEFORE', at }, null))
})

t.test('pages: a limit outside (0, max] is the default, an offset not above 0 is 0, fractions are cut', async (t) => {
  const page = (offset?: string, limit?: string) => pageOf(offset, limit, { limit: 50, maxLimit: 100 })
  t.same(page(), { offset: 0, limit: 50 })
  t.same(page('40', '10'), { offset: 40, limit: 10 })
  t.same(page('-3', '0'), { offset: 0, limit: 50 })
  t.same(page('abc', 'abc'), { offset: 0, limit: 50 })
  t.same(page('1.5', '2.5'), { offset: 1, limit: 2 })
  t.same(page(undefined, '101'), { offset: 0, limit: 50 })
  t.same(page(undefined, '100'), { offset: 0, limit: 100 })
})

t.test('the flag search query: each parameter read as Unleash reads it', async (t) => {
  const search = features('query=a,b&project=IS:default&type=IS_ANY_OF:release,experiment&createdBy=IS:-42&tag=INCLUDE_ALL_OF:simple:a, x:b:c&archived=IS:true&favorite=IS:true&favoritesFirst=true&sortBy=environment:production&sortOrder=desc&status=production:enabled&status=dev:bogus&createdAt=IS_BEFORE:2024-02-01&offset=5&limit=7')
  t.same(search.terms, ['a', 'b'])
  t.same(search.project, { operator: 'IS', values: ['default'] })
  t.same(search.createdBy, { operator: 'IS', values: [-42] })
  t.same(search.tag, { operator: 'INCLUDE_ALL_OF', tags: [{ type: 'simple', value: 'a' }, { type: 'x', value: 'b:c' }] })
  t.equal(search.archived, true)
  t.equal(search.favorite, true)
  t.equal(search.favoritesFirst, true)
  t.same(search.sortBy, { by: 'environment', environment: 'production' })
  t.equal(search.sortOrder, 'desc')
  t.same(search.status, [{ environment: 'production', enabled: true }], 'a status other than enabled or disabled is dropped')
  t.same(search.createdAt, { operator: 'IS_BEFORE', at: Date.parse('2024-02-01T00:00:00.000Z') })
  t.same([search.offset, search.limit], [5, 7])

  const plain = features('')
  t.same([plain.archived, plain.favoritesFirst, plain.sortBy, plain.sortOrder, plain.offset, plain.limit], [false, false, { by: 'createdAt' }, 'asc', 0, 50])
  t.equal(features('archived=IS:false').archived, false)
  t.same(features('sortBy=description').sortBy, { by: 'createdAt' }, 'an unknown sort is by creation')
  t.equal(features('favorite=IS_ANY_OF:true,false').favorite, undefined)
  t.equal(features('favorite=IS:false').favorite, false)
  t.equal(features('type=IS:').type, undefined, 'nothing after the colon: no filter')
  t.same(features('status=production:enabled').status, [{ environment: 'production', enabled: true }], 'one status is a list of one')
})

t.test('the flag search query refuses what Unleash refuses, and what its database fails on', async (t) => {
  const refused = (query: string, message: RegExp) => {
    const parsed = featureQuery(query)
    t.notOk(parsed.success, `${query} is refused`)
    if (!parsed.success) t.match(parsed.issues[0].message, message, query)
  }
  refused('project=FOO:default', /^The `\/query\/project` property must match pattern "\^\(IS\|IS_NOT\|IS_ANY_OF\|IS_NONE_OF\):\(\.\*\?\)\(,\(\[a-zA-Z0-9_\]\+\)\)\*\$"\. You sent "FOO:default"\.$/)
  refused('project=default', /must match pattern/)
  refused('type=INCLUDE:release', /`\/query\/type`/)
  refused('segment=IS:x', /`\/query\/segment`/)
  refused('tag=INCLUDE:foo', /`\/query\/tag` property must match pattern/)
  refused('tag=IS:simple:a', /must match pattern/)
  refused('tag=INCLUDE_ANY_OF:simple:a,b', /must list tags as type:value/)
  refused('tag=INCLUDE_ANY_OF:simple:a,', /must match pattern|type:value/)
  refused('sortOrder=up', /^The `sortOrder` property must be equal to one of the allowed values: "asc", "desc"\. You provided "up"/)
  refused('sortOrder=', /allowed values/)
  refused('archived=yes', /`\/query\/archived` property must match pattern "\^IS:\(true\|false\)\$"/)
  refused('favorite=IS:maybe', /`\/query\/favorite`/)
  refused('createdAt=IS:2024-01-01', /`\/query\/createdAt` property must match pattern/)
  refused('createdAt=IS_BEFORE:notadate', /must match pattern/)
  refused('createdAt=IS_BEFORE:2024-13-45', /must hold a real date/)
  refused('lastSeenAt=IS_BEFORE:2024-02-30', /must hold a real date/)
  refused('createdBy=IS:abc', /must list whole numbers/)
  refused('createdBy=IS:-42,', /must list whole numbers/)
  refused('limit=abc&limit=1', /^The `\/query\/limit` property must be string\. You sent \["abc","1"\]\.$/)
  refused('project=IS:a&project=IS:b', /`\/query\/project` property must be string/)
  for (const accepted of ['limit=abc', 'offset=-5', 'sortBy=nonsense', 'favoritesFirst=maybe', 'unknown=1', 'type=IS:', 'state=IS:whatever', 'lifecycle=IS:bogus', 'createdBy=IS:', 'query=%', 'status=foo&status=bar']) {
    t.ok(featureQuery(accepted).success, `${accepted} is accepted`)
  }
})

t.test('the event search query', async (t) => {
  const parsed = eventQuery('query=srch&id=IS_ANY_OF:5,6&feature=IS:f&project=IS:p&type=IS_ANY_OF:a,b&createdBy=IS:-42&environment=IS:production&from=IS:2024-01-01&to=IS:2024-01-31&offset=2&limit=1000&sortOrder=whatever')
  t.ok(parsed.success)
  if (!parsed.success) return
  const search = eventSearchOf(parsed.output)
  t.same(search, {
    query: 'srch',
    ids: [5, 6],
    groupIds: undefined,
    features: ['f'],
    projects: ['p'],
    types: ['a', 'b'],
    createdByUserIds: [-42],
    environments: ['production'],
    from: Date.parse('2024-01-01T00:00:00.000Z'),
    to: Date.parse('2024-02-01T00:00:00.000Z'),
    offset: 2,
    limit: 1000,
  })
  t.same(eventSearchOf(v.parse(eventSearchQuerySchema, { limit: '1001', query: '' })), { ...eventSearchOf(v.parse(eventSearchQuerySchema, {})), limit: 50 })
  t.same(eventSearchOf(v.parse(eventSearchQuerySchema, { type: 'IS:feature-created,' })).types, ['feature-created', ''])
  for (const query of ['id=IS_NOT:5', 'id=IS:abc', 'createdBy=IS:abc', 'project=default', 'from=2024-01-01', 'from=IS:2026-13-45', 'to=IS_BEFORE:2024-01-01', 'type=IS_NOT:x']) {
    t.notOk(eventQuery(query).success, `${query} is refused`)
  }
})

import t from 'tap'
import { diffJson, showValue, withSegmentNames } from '../src/lib/diff.js'
import { emptyFilter, matchesFilter, moveItem, type FlagRow } from '../src/lib/flag-filter.js'
import { inputKind, splitValues, takesValues, valueProblem } from '../src/lib/operators.js'
import { permissionChecker } from '../src/lib/permissions.js'
import { curlCheck, sdkSnippet } from '../src/lib/onboarding.js'
import { href, pageTitle, parseRoute } from '../src/lib/route.js'
import { curlCommand, shadowingIndex, strategyLabel } from '../src/lib/strategies.js'

t.test('diffJson lists each changed leaf by its path', async (t) => {
  const before = { name: 'flexibleRollout', parameters: { rollout: '30', groupId: 'g' }, constraints: [] }
  const after = { name: 'flexibleRollout', parameters: { rollout: '60', groupId: 'g' }, constraints: [], title: 'Half' }
  t.same(diffJson(before, after), [
    { path: 'parameters.rollout', kind: 'changed', before: '30', after: '60' },
    { path: 'title', kind: 'added', after: 'Half' },
  ])
})

t.test('diffJson matches array items by id, so an insertion shows only the inserted item', async (t) => {
  const a = { id: 'a', rollout: 1 }
  const b = { id: 'b', rollout: 2 }
  const c = { id: 'c', rollout: 3 }
  t.same(diffJson({ strategies: [a, c] }, { strategies: [a, b, c] }), [
    { path: 'strategies[b].id', kind: 'added', after: 'b' },
    { path: 'strategies[b].rollout', kind: 'added', after: 2 },
  ])
})

t.test('diffJson of null to data lists every field as added; equal values give no lines', async (t) => {
  t.same(diffJson(null, { enabled: true }), [{ path: 'enabled', kind: 'added', after: true }])
  t.same(diffJson({ enabled: false }, null), [{ path: 'enabled', kind: 'removed', before: false }])
  t.same(diffJson({ a: [1, 2] }, { a: [1, 2] }), [])
})

t.test('each operator gets the input that fits it', async (t) => {
  t.equal(inputKind('IN'), 'list')
  t.equal(inputKind('STR_CONTAINS'), 'list')
  t.equal(inputKind('NUM_GTE'), 'number')
  t.equal(inputKind('DATE_AFTER'), 'date')
  t.equal(inputKind('SEMVER_LT'), 'semver')
  t.equal(takesValues('NOT_IN'), true)
  t.equal(takesValues('NUM_EQ'), false)
})

t.test('valueProblem names what is wrong with a single value', async (t) => {
  t.equal(valueProblem('SEMVER_EQ', '1.2'), 'not a semantic version (like 1.2.3)')
  t.equal(valueProblem('SEMVER_EQ', '1.2.3-beta.1'), undefined)
  t.equal(valueProblem('NUM_GT', 'ten'), 'not a number')
  t.equal(valueProblem('NUM_GT', '10.5'), undefined)
  t.equal(valueProblem('DATE_BEFORE', 'soon'), 'not a date')
  t.equal(valueProblem('DATE_BEFORE', '2030-01-01T00:00:00.000Z'), undefined)
  t.equal(valueProblem('NUM_EQ', ' '), 'a value is required')
})

t.test('the list editor splits on commas and new lines, dropping blanks and repeats', async (t) => {
  t.same(splitValues('a, b\nc,,a', ['c']), ['c', 'a', 'b'])
})

t.test('permissionChecker: ADMIN holds everything; project entries hold only in their project', async (t) => {
  const admin = permissionChecker([{ permission: 'ADMIN' }])
  t.equal(admin('DELETE_FEATURE', 'any'), true)
  const member = permissionChecker([{ permission: 'CREATE_PROJECT' }, { permission: 'UPDATE_FEATURE', project: 'web' }])
  t.equal(member('CREATE_PROJECT'), true)
  t.equal(member('UPDATE_FEATURE', 'web'), true)
  t.equal(member('UPDATE_FEATURE', 'payments'), false)
  t.equal(member(['DELETE_FEATURE', 'UPDATE_FEATURE'], 'web'), true, 'any one of several')
  t.equal(member('ADMIN'), false)
})

t.test('flag filters: search, tag, type and state', async (t) => {
  const flags: FlagRow[] = [
    { name: 'new-checkout', type: 'release', stale: false, tags: [{ type: 'team', value: 'shop' }], environments: [{ name: 'dev', enabled: true }] },
    { name: 'old-banner', type: 'experiment', stale: true, description: 'checkout banner', tags: [], environments: [{ name: 'dev', enabled: false }] },
  ]
  const names = (patch: Partial<typeof emptyFilter>) => flags.filter((f) => matchesFilter(f, { ...emptyFilter, ...patch })).map((f) => f.name)
  t.same(names({ search: 'CHECKOUT' }), ['new-checkout', 'old-banner'], 'search reads names and descriptions, any case')
  t.same(names({ tag: 'team:shop' }), ['new-checkout'])
  t.same(names({ type: 'experiment' }), ['old-banner'])
  t.same(names({ state: 'stale' }), ['old-banner'])
  t.same(names({ state: 'enabled' }), ['new-checkout'])
  t.same(names({ state: 'disabled' }), ['old-banner'])
})

t.test('moveItem moves one item and keeps the others in order', async (t) => {
  t.same(moveItem(['a', 'b', 'c', 'd'], 3, 1), ['a', 'd', 'b', 'c'])
  t.same(moveItem(['a', 'b'], 0, 5), ['a', 'b'], 'an index out of range changes nothing')
})

t.test('routes round-trip through the hash, names percent-encoded', async (t) => {
  const routes = [
    { page: 'projects' },
    { page: 'project', project: 'web shop', tab: 'flags' },
    { page: 'project', project: 'web', tab: 'change-requests' },
    { page: 'project', project: 'web', tab: 'archive' },
    { page: 'archive' },
    { page: 'flag', project: 'web', flag: 'a/b' },
    { page: 'change-request', project: 'web', id: 12 },
    { page: 'admin', section: 'segments' },
    { page: 'playground' },
  ] as const
  for (const route of routes) t.same(parseRoute(href(route)), route, href(route))
  t.same(parseRoute(''), { page: 'projects' })
  t.same(parseRoute('#/nowhere/at/all'), { page: 'not-found', path: '/nowhere/at/all' })
})

t.test('strategies read as words: built-in names, then the type\'s display name, then the name', async (t) => {
  t.equal(strategyLabel('flexibleRollout'), 'Gradual rollout')
  t.equal(strategyLabel('default'), 'Standard')
  t.equal(strategyLabel('flexibleRollout', 'Rollout by Unleash'), 'Rollout by Unleash', 'a display name from the API wins')
  t.equal(strategyLabel('myCustom'), 'myCustom')
})

t.test('shadowingIndex finds the strategy that matches everyone above others', async (t) => {
  const s = (name: string, rollout?: string, more: { constraints?: unknown[]; segments?: unknown[]; disabled?: boolean } = {}) => ({
    name,
    parameters: Object.fromEntries(rollout === undefined ? [] : [['rollout', rollout]]),
    constraints: more.constraints ?? [],
    segments: more.segments ?? [],
    disabled: more.disabled,
  })
  t.equal(shadowingIndex([s('flexibleRollout', '100'), s('default')]), 0, 'a 100 % rollout above another')
  t.equal(shadowingIndex([s('flexibleRollout', '50'), s('default'), s('userWithId')]), 1, 'Standard above another')
  t.equal(shadowingIndex([s('flexibleRollout', '100')]), undefined, 'nothing below it')
  t.equal(shadowingIndex([s('flexibleRollout', '99'), s('default')]), undefined, 'under 100 % leaves room')
  t.equal(shadowingIndex([s('default', undefined, { constraints: [{}] }), s('default')]), undefined, 'a constraint narrows it')
  t.equal(shadowingIndex([s('default', undefined, { segments: [1] }), s('default')]), undefined, 'so does a segment')
  t.equal(shadowingIndex([s('default', undefined, { disabled: true }), s('default')]), undefined, 'a disabled one matches nobody')
})

t.test('curlCommand quotes the URL and the JSON body for a shell', async (t) => {
  t.equal(curlCommand('DELETE', 'http://h/api/x'), "curl --location --request DELETE 'http://h/api/x' \\\n    --header 'Authorization: INSERT_API_KEY'")
  const command = curlCommand('POST', 'http://h/api/x', { title: "it's" })
  t.match(command, "--header 'Content-Type: application/json'")
  t.match(command, `--data-raw '{\n  "title": "it'\\''s"\n}'`, "a single quote in the body is closed, escaped and reopened")
})

t.test('a list of plain values diffs as one line, and segment ids read as names', async (t) => {
  const names = new Map([[1, 'beta-users'], [2, 'staff']])
  const named = (v: unknown) => withSegmentNames(v, (id) => names.get(id) ?? `#${id}`)
  t.same(diffJson(named({ segments: [] }), named({ segments: [1] })), [{ path: 'segments', kind: 'added', after: ['beta-users'] }])
  t.same(diffJson(named({ segments: [1] }), named({ segments: [1, 2] })), [{ path: 'segments', kind: 'changed', before: ['beta-users'], after: ['beta-users', 'staff'] }])
  t.same(diffJson({ values: ['a'] }, {}), [{ path: 'values', kind: 'removed', before: ['a'] }])
  t.equal(showValue(['beta-users', 'staff']), 'beta-users, staff')
  t.same(named({ strategies: [{ segments: [2], constraints: [] }] }), { strategies: [{ segments: ['staff'], constraints: [] }] }, 'nested strategies too')
})

t.test("the SDK snippet points at this server's /api/ and asks for the flag", async (t) => {
  const snippet = sdkSnippet('https://flags.example.com', 'new-checkout')
  t.match(snippet, "url: 'https://flags.example.com/api/'")
  t.match(snippet, "unleash.isEnabled('new-checkout')")
  t.equal(curlCheck('https://flags.example.com'), 'curl https://flags.example.com/api/client/features --header "Authorization: $UNLEASH_API_TOKEN"')
})

t.test("each page's title names what it shows, where, and the application", async (t) => {
  t.equal(pageTitle({ page: 'flag', project: 'web', flag: 'new-checkout' }), 'new-checkout · web · Flagwright')
  t.equal(pageTitle({ page: 'project', project: 'web', tab: 'flags' }), 'web · Flagwright')
  t.equal(pageTitle({ page: 'project', project: 'web', tab: 'archive' }), 'Archived flags · web · Flagwright')
  t.equal(pageTitle({ page: 'admin', section: 'api-tokens' }, 'API tokens'), 'API tokens · Flagwright')
  t.equal(pageTitle({ page: 'projects' }), 'Projects · Flagwright')
})

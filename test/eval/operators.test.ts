import t from 'tap'
import type { Context } from 'unleash-client'
import { defaultStrategies } from 'unleash-client/lib/strategy/index.js'
import { type Constraint, Strategy } from 'unleash-client/lib/strategy/strategy.js'
import { Evaluator } from '../../src/eval/evaluator.js'
import { compileConstraint } from '../../src/eval/operators.js'
import type { EvalConstraint, EvalContext } from '../../src/eval/types.js'
import { mulberry32 } from '../../bench/lib/seeded-random.js'

// The SDK's own operator code, with the SDK's default context around it.
const sdkProbe = new Strategy('probe', true)
const sdkAnswer = (constraint: EvalConstraint, context: EvalContext): boolean | 'throws' => {
  try {
    const sdkContext = { appName: undefined, environment: 'default', ...context } as Context
    return sdkProbe.isEnabledWithConstraints({}, sdkContext, [constraint as Constraint].values())
  } catch {
    return 'throws'
  }
}

type Row = [description: string, constraint: Omit<EvalConstraint, 'contextName'> & { contextName?: string }, context: EvalContext, expected: boolean]

const runTable = (name: string, rows: Row[]): void => {
  t.test(name, async (t) => {
    for (const [description, constraint, context, expected] of rows) {
      const full = { contextName: 'userId', ...constraint }
      t.equal(compileConstraint(full)(context), expected, description)
      const sdk = sdkAnswer(full, context)
      // The SDK throws on a missing values list; the server never sends one.
      if (sdk !== 'throws') t.equal(sdk, expected, `${description} (unleash-client agrees)`)
    }
  })
}

runTable('IN', [
  ['a listed value matches', { operator: 'IN', values: ['a', 'b'] }, { userId: 'b' }, true],
  ['an unlisted value does not', { operator: 'IN', values: ['a', 'b'] }, { userId: 'c' }, false],
  ['a single value matches', { operator: 'IN', values: ['a'] }, { userId: 'a' }, true],
  ['missing context is false', { operator: 'IN', values: ['a'] }, {}, false],
  ['the second of two values matches', { operator: 'IN', values: ['a', 'b'] }, { userId: 'b' }, true],
  ['the third of three values matches', { operator: 'IN', values: ['a', 'b', 'c'] }, { userId: 'c' }, true],
  ['the fourth of four values matches', { operator: 'IN', values: ['a', 'b', 'c', 'd'] }, { userId: 'd' }, true],
  ['none of four values matches', { operator: 'IN', values: ['a', 'b', 'c', 'd'] }, { userId: 'e' }, false],
  ['a missing field matches none of three values', { operator: 'IN', values: ['a', 'b', 'c'] }, {}, false],
  ['five values match from a set', { operator: 'IN', values: ['a', 'b', 'c', 'd', 'e'] }, { userId: 'e' }, true],
  ['an empty list is false', { operator: 'IN', values: [] }, { userId: 'a' }, false],
  ['absent values are an empty list', { operator: 'IN' }, { userId: 'a' }, false],
  ['inverted negates', { operator: 'IN', values: ['a'], inverted: true }, { userId: 'a' }, false],
  ['inverted on missing context is true', { operator: 'IN', values: ['a'], inverted: true }, {}, true],
  ['caseInsensitive is ignored (SDK)', { operator: 'IN', values: ['a'], caseInsensitive: true }, { userId: 'A' }, false],
  ['values are trimmed, the context value is not', { operator: 'IN', values: [' a '] }, { userId: 'a' }, true],
  ['an untrimmed context value does not match', { operator: 'IN', values: ['a'] }, { userId: ' a' }, false],
  ['empty values are dropped', { operator: 'IN', values: [''] }, { userId: '' }, false],
  ['properties are looked up', { contextName: 'country', operator: 'IN', values: ['no'] }, { properties: { country: 'no' } }, true],
  ['top-level keys shadow properties', { contextName: 'country', operator: 'IN', values: ['no'] }, { country: 'se', properties: { country: 'no' } }, false],
  ['non-string context values are stringified', { contextName: 'n', operator: 'IN', values: ['5'] }, { properties: { n: 5 } }, true],
  ['environment defaults to "default"', { contextName: 'environment', operator: 'IN', values: ['default'] }, {}, true],
  ['a given environment replaces the default', { contextName: 'environment', operator: 'IN', values: ['default'] }, { environment: 'prod' }, false],
  ['properties.environment never replaces the default', { contextName: 'environment', operator: 'IN', values: ['prod'] }, { properties: { environment: 'prod' } }, false],
  ['an inherited environment is not the context\'s (the SDK spreads own keys)', { contextName: 'environment', operator: 'IN', values: ['default'] }, Object.create({ environment: 'prod' }) as EvalContext, true],
  ['a non-string environment is stringified', { contextName: 'environment', operator: 'IN', values: ['5'] }, { environment: 5 } as unknown as EvalContext, true],
  ['an explicit undefined environment falls through to properties', { contextName: 'environment', operator: 'IN', values: ['prod'] }, { environment: undefined, properties: { environment: 'prod' } }, true],
  ['many values use a set', { operator: 'IN', values: Array.from({ length: 50 }, (_, i) => `u${i}`) }, { userId: 'u42' }, true],
])

// Five values or more are looked up in a sorted list: every listed value, in any order and with repeats,
// and nothing before, between or after them.
t.test('IN and NOT_IN over a long list find each listed value and no other', async (t) => {
  const listed = ['tenant-42', 'tenant-7', 'Tenant-7', 'tenant-420', 'æøå', 'tenant-1', 'tenant-42', 'z', '10', '9', 'tenant-300', 'tenant-299', '😀', 'tenant-7 ', 'a', 'tenant-100', 'tenant-0', 'b', 'tenant-9', 'tenant-99']
  const absent = ['', 'A', 'tenant-', 'tenant-4', 'tenant-43', 'tenant-7x', 'tenant-8', 'zz', '1', '0', 'æ', 'tenant-2990', 'ü', '\u{1F601}']
  for (const operator of ['IN', 'NOT_IN']) {
    const constraint = { contextName: 'tenantId', operator, values: listed }
    const test = compileConstraint(constraint)
    for (const value of listed) {
      // Values are trimmed: 'tenant-7 ' is listed as 'tenant-7', and the context's 'tenant-7 ' matches nothing.
      const wanted = value === value.trim() ? operator === 'IN' : operator === 'NOT_IN'
      t.equal(test({ properties: { tenantId: value } }), wanted, `${operator} ${JSON.stringify(value)}`)
      t.equal(sdkAnswer(constraint, { properties: { tenantId: value } }), wanted, `${operator} ${JSON.stringify(value)} (unleash-client agrees)`)
    }
    for (const value of absent) {
      t.equal(test({ properties: { tenantId: value } }), operator === 'NOT_IN', `${operator} ${JSON.stringify(value)}`)
      t.equal(sdkAnswer(constraint, { properties: { tenantId: value } }), operator === 'NOT_IN', `${operator} ${JSON.stringify(value)} (unleash-client agrees)`)
    }
    t.equal(test({}), operator === 'NOT_IN', `${operator} without the field`)
  }
})

runTable('NOT_IN', [
  ['an unlisted value is true', { operator: 'NOT_IN', values: ['a'] }, { userId: 'b' }, true],
  ['a listed value is false', { operator: 'NOT_IN', values: ['a'] }, { userId: 'a' }, false],
  ['missing context is true', { operator: 'NOT_IN', values: ['a'] }, {}, true],
  ['a null property is true', { contextName: 'x', operator: 'NOT_IN', values: ['a'] }, { properties: { x: null } }, true],
  ['an empty list is true', { operator: 'NOT_IN', values: [] }, { userId: 'a' }, true],
  ['inverted is IN', { operator: 'NOT_IN', values: ['a'], inverted: true }, { userId: 'a' }, true],
])

runTable('STR_STARTS_WITH / STR_ENDS_WITH / STR_CONTAINS', [
  ['starts with', { operator: 'STR_STARTS_WITH', values: ['x', 'ab'] }, { userId: 'abc' }, true],
  ['does not start with', { operator: 'STR_STARTS_WITH', values: ['b'] }, { userId: 'abc' }, false],
  ['ends with', { operator: 'STR_ENDS_WITH', values: ['bc'] }, { userId: 'abc' }, true],
  ['contains', { operator: 'STR_CONTAINS', values: ['b'] }, { userId: 'abc' }, true],
  ['case-sensitive by default', { operator: 'STR_CONTAINS', values: ['B'] }, { userId: 'abc' }, false],
  ['caseInsensitive lower-cases both sides', { operator: 'STR_ENDS_WITH', values: ['@EXAMPLE.com'], caseInsensitive: true }, { userId: 'me@example.COM' }, true],
  ['caseInsensitive starts with', { operator: 'STR_STARTS_WITH', values: ['x', 'USER-'], caseInsensitive: true }, { userId: 'User-12' }, true],
  ['caseInsensitive does not start with', { operator: 'STR_STARTS_WITH', values: ['ser'], caseInsensitive: true }, { userId: 'User-12' }, false],
  ['caseInsensitive contains, in the middle', { operator: 'STR_CONTAINS', values: ['Q@B'], caseInsensitive: true }, { userId: 'aaQ@Bcc' }, true],
  ['caseInsensitive does not contain', { operator: 'STR_CONTAINS', values: ['q@c'], caseInsensitive: true }, { userId: 'aaQ@Bcc' }, false],
  ['caseInsensitive: a value longer than the context value', { operator: 'STR_ENDS_WITH', values: ['longer'], caseInsensitive: true }, { userId: 'ger' }, false],
  ['caseInsensitive: punctuation is not lowered', { operator: 'STR_ENDS_WITH', values: ['['], caseInsensitive: true }, { userId: 'a{' }, false],
  ['caseInsensitive: a non-ASCII context value', { operator: 'STR_ENDS_WITH', values: ['ÆØÅ'], caseInsensitive: true }, { userId: 'blåbærsyltetøy-æøå' }, true],
  ['caseInsensitive: a non-ASCII value, an ASCII context value', { operator: 'STR_CONTAINS', values: ['é'], caseInsensitive: true }, { userId: 'cafe' }, false],
  ['missing context is false', { operator: 'STR_CONTAINS', values: ['a'] }, {}, false],
  ['inverted missing context is true', { operator: 'STR_CONTAINS', values: ['a'], inverted: true }, {}, true],
  ['an empty list is false', { operator: 'STR_STARTS_WITH', values: [] }, { userId: 'a' }, false],
  ['values are trimmed', { operator: 'STR_STARTS_WITH', values: [' a'] }, { userId: 'ab' }, true],
])

runTable('NUM_*', [
  ['NUM_EQ treats "12.0" as 12', { operator: 'NUM_EQ', value: '12' }, { properties: { n: '12.0' }, userId: '12.0' }, true],
  ['NUM_EQ different', { operator: 'NUM_EQ', value: '12' }, { userId: '13' }, false],
  ['NUM_GT', { operator: 'NUM_GT', value: '12' }, { userId: '13' }, true],
  ['NUM_GT equal is false', { operator: 'NUM_GT', value: '12' }, { userId: '12' }, false],
  ['NUM_GTE equal', { operator: 'NUM_GTE', value: '12' }, { userId: '12' }, true],
  ['NUM_LT', { operator: 'NUM_LT', value: '12' }, { userId: '11.5' }, true],
  ['NUM_LTE equal', { operator: 'NUM_LTE', value: '-1' }, { userId: '-1' }, true],
  ['a NaN context value is false', { operator: 'NUM_LT', value: '12' }, { userId: 'twelve' }, false],
  ['inverted NaN context is true', { operator: 'NUM_LT', value: '12', inverted: true }, { userId: 'twelve' }, true],
  ['a NaN constraint value is false', { operator: 'NUM_GTE', value: 'x' }, { userId: '1' }, false],
  ['missing context is false', { operator: 'NUM_LTE', value: '100' }, {}, false],
  ['an empty context string is 0', { operator: 'NUM_EQ', value: '0' }, { userId: '' }, true],
  ['a numeric property works', { contextName: 'n', operator: 'NUM_GT', value: '3' }, { properties: { n: 4 } }, true],
  ['booleans are not numbers', { contextName: 'n', operator: 'NUM_EQ', value: '1' }, { properties: { n: true } }, false],
])

runTable('DATE_AFTER / DATE_BEFORE', [
  ['after, with the value offset honoured', { operator: 'DATE_AFTER', value: '2022-01-22T12:00:00+01:00' }, { currentTime: '2022-01-22T11:30:00.000Z' }, true],
  ['not after the same instant', { operator: 'DATE_AFTER', value: '2022-01-22T11:30:00Z' }, { currentTime: '2022-01-22T12:30:00+01:00' }, false],
  ['before', { operator: 'DATE_BEFORE', value: '2022-01-22T11:30:00Z' }, { currentTime: '2022-01-22T11:29:59Z' }, true],
  ['a Date object works', { operator: 'DATE_BEFORE', value: '2022-01-22T11:30:00Z' }, { currentTime: new Date('2022-01-01T00:00:00Z') }, true],
  ['contextName is ignored', { contextName: 'anything', operator: 'DATE_AFTER', value: '2022-01-01T00:00:00Z' }, { currentTime: '2023-01-01T00:00:00Z' }, true],
  ['missing currentTime means now', { operator: 'DATE_AFTER', value: '2000-01-01T00:00:00Z' }, {}, true],
  ['an invalid value is false', { operator: 'DATE_AFTER', value: 'not a date' }, { currentTime: '2022-01-01T00:00:00Z' }, false],
  ['inverted invalid value is true', { operator: 'DATE_AFTER', value: 'not a date', inverted: true }, {}, true],
  ['an invalid currentTime is false', { operator: 'DATE_BEFORE', value: '2022-01-01T00:00:00Z' }, { currentTime: 'yesterday' }, false],
])

t.test('a DATE_* test reads the clock until it is past the date, and then no more', async (t) => {
  const realNow = Date.now
  t.teardown(() => {
    Date.now = realNow
  })
  let now = Date.parse('2024-01-01T00:00:00Z')
  let readings = 0
  Date.now = () => {
    readings++
    return now
  }
  const after = compileConstraint({ contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-06-01T00:00:00Z' })
  const before = compileConstraint({ contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2024-06-01T00:00:00Z' })
  t.same([after({}), before({}), after({}), readings], [false, true, false, 3], 'before the date: a reading each time')
  now = Date.parse('2024-06-01T00:00:00Z')
  t.same([after({}), before({}), readings], [false, false, 5], 'at the date itself: neither, and read again')
  now = Date.parse('2024-06-01T00:00:00.001Z')
  t.same([after({}), before({}), readings], [true, false, 7], 'past it')
  t.same([after({}), before({}), after({}), readings], [true, false, true, 7], 'and then no more readings')
  t.same([after({ currentTime: '2024-01-01T00:00:00Z' }), before({ currentTime: '2024-01-01T00:00:00Z' })], [false, true], 'a currentTime is still compared')
})

runTable('SEMVER_*', [
  ['SEMVER_EQ', { operator: 'SEMVER_EQ', value: '1.2.3' }, { userId: '1.2.3' }, true],
  ['SEMVER_EQ ignores build metadata', { operator: 'SEMVER_EQ', value: '1.2.3' }, { userId: '1.2.3+build.7' }, true],
  ['SEMVER_GT', { operator: 'SEMVER_GT', value: '1.2.3' }, { userId: '1.10.0' }, true],
  ['SEMVER_LT', { operator: 'SEMVER_LT', value: '1.2.3' }, { userId: '1.2.2' }, true],
  ['SEMVER_GTE equal', { operator: 'SEMVER_GTE', value: '1.2.3' }, { userId: '1.2.3' }, true],
  ['SEMVER_LTE greater is false', { operator: 'SEMVER_LTE', value: '1.2.3' }, { userId: '1.2.4' }, false],
  ['a pre-release precedes its release', { operator: 'SEMVER_LT', value: '2.0.0' }, { userId: '2.0.0-rc.1' }, true],
  ['alpha < alpha.1', { operator: 'SEMVER_GT', value: '2.0.0-alpha' }, { userId: '2.0.0-alpha.1' }, true],
  ['alpha.1 < beta.1', { operator: 'SEMVER_LT', value: '2.0.0-beta.1' }, { userId: '2.0.0-alpha.1' }, true],
  ['beta.1 < rc', { operator: 'SEMVER_LT', value: '2.0.0-rc' }, { userId: '2.0.0-beta.1' }, true],
  ['numeric identifiers compare numerically', { operator: 'SEMVER_GT', value: '2.0.0-beta.2' }, { userId: '2.0.0-beta.11' }, true],
  ['a context value starting with v is refused', { operator: 'SEMVER_EQ', value: '2.0.0' }, { userId: 'v2.0.0' }, false],
  ['an invalid context value is false', { operator: 'SEMVER_GT', value: '1.0.0' }, { userId: 'not a semver' }, false],
  ['missing context is false', { operator: 'SEMVER_GT', value: '1.0.0' }, {}, false],
  ['an invalid constraint value is false', { operator: 'SEMVER_LT', value: '1.0' }, { userId: '0.1.0' }, false],
  ['inverted invalid constraint value is true', { operator: 'SEMVER_LT', value: '1.0', inverted: true }, { userId: '0.1.0' }, true],
])

runTable('REGEX', [
  ['an unanchored search', { operator: 'REGEX', value: 'b+' }, { userId: 'abbc' }, true],
  ['anchors are honoured', { operator: 'REGEX', value: '^b' }, { userId: 'abc' }, false],
  ['case-sensitive by default', { operator: 'REGEX', value: '^ABC$' }, { userId: 'abc' }, false],
  ['caseInsensitive sets the flag', { operator: 'REGEX', value: '^ABC$', caseInsensitive: true }, { userId: 'abc' }, true],
  ['inline (?i) works', { operator: 'REGEX', value: '(?i)^abc$' }, { userId: 'ABC' }, true],
  ['inline (?m) works', { operator: 'REGEX', value: '(?m)^foo$' }, { userId: 'x\nfoo\ny' }, true],
  ['lookahead does not compile in RE2 and is false', { operator: 'REGEX', value: '^(?=a)a' }, { userId: 'a' }, false],
  ['a backreference is false', { operator: 'REGEX', value: '^(a)\\1$' }, { userId: 'aa' }, false],
  ['missing context is false', { operator: 'REGEX', value: '.*' }, {}, false],
  ['inverted', { operator: 'REGEX', value: '^a', inverted: true }, { userId: 'b' }, true],
])

runTable('IN_CIDR', [
  ['an IPv4 network contains an address', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }, { remoteAddress: '10.1.2.3' }, true],
  ['an IPv4 network excludes an address', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }, { remoteAddress: '11.1.2.3' }, false],
  ['an exact IPv4 address', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['192.168.1.1'] }, { remoteAddress: '192.168.1.1' }, true],
  ['an IPv6 network contains an address', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['2001:db8::/32'] }, { remoteAddress: '2001:db8:1::7' }, true],
  ['an exact IPv6 address in another form', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['2001:db8::1'] }, { remoteAddress: '2001:0db8:0:0:0:0:0:1' }, true],
  ['families never mix', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['::/0'] }, { remoteAddress: '10.0.0.1' }, false],
  ['invalid entries are ignored', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['nope', '10.0.0.0/33', '10.0.0.0/8'] }, { remoteAddress: '10.0.0.1' }, true],
  ['only invalid entries is false', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['nope'] }, { remoteAddress: '10.0.0.1' }, false],
  ['an invalid context address is false', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }, { remoteAddress: '10.0.0' }, false],
  ['missing context is false', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }, {}, false],
  ['any context field works', { contextName: 'ip', operator: 'IN_CIDR', values: ['10.0.0.0/8'] }, { properties: { ip: '10.9.9.9' } }, true],
])

runTable('unknown operators', [
  ['are false', { operator: 'NOT_AN_OPERATOR', values: ['a'] }, { userId: 'a' }, false],
  ['stay false when inverted', { operator: 'NOT_AN_OPERATOR', values: ['a'], inverted: true }, { userId: 'a' }, false],
])

// IPv4 contexts take a fast path that must answer exactly as ip-address does.
t.test('IPv4 matching agrees with unleash-client on random addresses and networks', async (t) => {
  const rand = mulberry32(42)
  const int = (n: number) => Math.floor(rand() * n)
  const octet = () => String(pick([0, 1, 10, 127, 128, 192, 255, int(256), int(256)]))
  const pick = <T>(items: T[]): T => items[int(items.length)]
  const quad = () => [octet(), octet(), octet(), octet()].join('.')
  const odd = () => pick(['01.2.3.4', '1.2.3.04', '256.1.1.1', '1.2.3', '1.2.3.4.5', ' 1.2.3.4', '1.2.3.4/24', '10.0.0.1/8', '0.0.0.0', '255.255.255.255', '1..2.3', '', 'x'])
  const address = () => (rand() < 0.8 ? quad() : odd())
  const network = () => (rand() < 0.7 ? `${quad()}/${int(33)}` : rand() < 0.5 ? quad() : odd())
  const remoteAddress = defaultStrategies.find((s) => s.name === 'remoteAddress')!
  const evaluator = new Evaluator()
  let disagreements = 0
  let matches = 0
  for (let i = 0; i < 3000; i++) {
    const values = Array.from({ length: 1 + int(3) }, network)
    const ctx = { remoteAddress: address() }
    const constraint: EvalConstraint = { contextName: 'remoteAddress', operator: 'IN_CIDR', values }
    const inCidr = compileConstraint(constraint)(ctx)
    if (inCidr) matches++
    if (inCidr !== sdkAnswer(constraint, ctx)) disagreements++
    const IPs = values.join(', ')
    evaluator.upsertFeature({ name: 'ips', enabled: true, strategies: [{ name: 'remoteAddress', parameters: { IPs } }] })
    if (evaluator.evaluate('ips', ctx).enabled !== remoteAddress.isEnabled({ IPs }, ctx as Context)) disagreements++
  }
  t.equal(disagreements, 0)
  t.ok(matches > 200, `${matches} of 3000 match`)
})

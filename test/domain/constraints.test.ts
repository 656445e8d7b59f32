import t from 'tap'
import * as v from 'valibot'
import { savedConstraint, validateConstraint } from '../../src/domain/constraints.js'
import { constraintSchema } from '../../src/schemas/shared.js'
import { statusOf } from '../../src/http/errors.js'

type Input = v.InferInput<typeof constraintSchema>

const noLegalValues = { legalValuesOf: () => undefined }
const check = (input: Input, world: { legalValuesOf: (name: string) => ReadonlySet<string> | undefined } = noLegalValues) =>
  validateConstraint(v.parse(constraintSchema, input), world)

const singleValueRequired = 'Single-value constraint operators require a non-empty value.'

// SEMANTICS 2.4, write side: every refusal is a 400.
t.test('accepted constraints', async (t) => {
  const rows: [string, Input][] = [
    ['IN with values', { contextName: 'userId', operator: 'IN', values: ['a', 'b'] }],
    ['IN without values (defaults to [])', { contextName: 'userId', operator: 'IN' }],
    ['NOT_IN', { contextName: 'userId', operator: 'NOT_IN', values: ['a'] }],
    ['STR_STARTS_WITH', { contextName: 'email', operator: 'STR_STARTS_WITH', values: ['admin'] }],
    ['STR_ENDS_WITH, case insensitive', { contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@x.com'], caseInsensitive: true }],
    ['STR_CONTAINS, inverted', { contextName: 'email', operator: 'STR_CONTAINS', values: ['test'], inverted: true }],
    ['a value of 100 characters', { contextName: 'userId', operator: 'IN', values: ['x'.repeat(100)] }],
    ['NUM_EQ integer', { contextName: 'n', operator: 'NUM_EQ', value: '12' }],
    ['NUM_GT decimal', { contextName: 'n', operator: 'NUM_GT', value: '12.5' }],
    ['NUM_LT negative', { contextName: 'n', operator: 'NUM_LT', value: '-3' }],
    ['DATE_AFTER ISO date-time', { contextName: 'currentTime', operator: 'DATE_AFTER', value: '2024-01-01T00:00:00.000Z' }],
    ['DATE_BEFORE with offset', { contextName: 'currentTime', operator: 'DATE_BEFORE', value: '2024-01-01T00:00:00+02:00' }],
    ['SEMVER_EQ', { contextName: 'version', operator: 'SEMVER_EQ', value: '1.2.3' }],
    ['SEMVER_GT pre-release', { contextName: 'version', operator: 'SEMVER_GT', value: '1.2.3-beta.1' }],
    ['REGEX', { contextName: 'email', operator: 'REGEX', value: '^[a-z]+@example\\.com$' }],
    ['REGEX with inline flags', { contextName: 'email', operator: 'REGEX', value: '(?i)^admin' }],
    ['REGEX inverted (the SDKs evaluate it)', { contextName: 'email', operator: 'REGEX', value: 'x', inverted: true }],
    ['IN_CIDR (the SDKs evaluate it)', { contextName: 'remoteAddress', operator: 'IN_CIDR', values: ['10.0.0.0/8', '::1'] }],
  ]
  for (const [name, input] of rows) t.equal(check(input), undefined, name)
})

t.test('refused constraints', async (t) => {
  const rows: [string, Input, string?][] = [
    ['an unknown operator', { contextName: 'userId', operator: 'LIKE', values: ['a'] }],
    ['an empty value in values', { contextName: 'userId', operator: 'IN', values: [''] }],
    ['NUM without value', { contextName: 'n', operator: 'NUM_EQ' }, singleValueRequired],
    ['NUM with an empty value', { contextName: 'n', operator: 'NUM_GTE', value: '' }, singleValueRequired],
    ['NUM with values instead of value', { contextName: 'n', operator: 'NUM_LTE', values: ['1'] }, singleValueRequired],
    ['NUM not a number', { contextName: 'n', operator: 'NUM_EQ', value: 'twelve' }],
    ['DATE without value', { contextName: 'currentTime', operator: 'DATE_AFTER' }, singleValueRequired],
    ['DATE not a date', { contextName: 'currentTime', operator: 'DATE_BEFORE', value: 'tomorrow' }],
    ['SEMVER without value', { contextName: 'version', operator: 'SEMVER_LT' }, singleValueRequired],
    ['SEMVER with a v prefix', { contextName: 'version', operator: 'SEMVER_EQ', value: 'v1.2.3' }],
    ['SEMVER not strict', { contextName: 'version', operator: 'SEMVER_GTE', value: '1.2' }],
    ['SEMVER not a version', { contextName: 'version', operator: 'SEMVER_LTE', value: 'latest' }],
    ['REGEX without value', { contextName: 'email', operator: 'REGEX' }, singleValueRequired],
    ['REGEX that RE2 cannot compile (lookahead)', { contextName: 'email', operator: 'REGEX', value: '^(?=a)a' }],
    ['REGEX that RE2 cannot compile (backreference)', { contextName: 'email', operator: 'REGEX', value: '(a)\\1' }],
    ['REGEX that does not parse', { contextName: 'email', operator: 'REGEX', value: '([a-z' }],
  ]
  for (const [name, input, message] of rows) {
    const error = validateConstraint(v.parse(constraintSchema, input), noLegalValues)
    t.equal(error?.kind, 'BadDataError', `${name} is a BadDataError`)
    if (error) t.equal(statusOf(error), 400)
    if (error && message) {
      t.equal(error.message, `Request validation failed: your request body or params contain invalid data: ${message}`, `${name}: message`)
      t.same(error.details, [{ message }], `${name}: details`)
    }
  }
  t.notOk(v.safeParse(constraintSchema, { contextName: 'userId', operator: 'IN', values: ['x'.repeat(101)] }).success, 'a value over 100 characters is refused at the edge')
})

t.test('legal values of the context field', async (t) => {
  const world = { legalValuesOf: (name: string) => (name === 'region' ? new Set(['eu', 'us']) : undefined) }
  t.equal(check({ contextName: 'region', operator: 'IN', values: ['eu', 'us'] }, world), undefined, 'legal values pass')
  t.equal(check({ contextName: 'region', operator: 'IN', values: ['eu', 'mars'] }, world)?.kind, 'BadDataError', 'an illegal value is refused')
  t.equal(check({ contextName: 'region', operator: 'NOT_IN', values: ['apac'] }, world)?.kind, 'BadDataError', 'also for NOT_IN')
  t.equal(check({ contextName: 'userId', operator: 'IN', values: ['anything'] }, world), undefined, 'fields without legal values take any value')
})

// Unleash 8.2 side by side: NUM_EQ with a value outside legalValues is a 400; its `values` are not looked at.
t.test('a single value must be a legal value too', async (t) => {
  const world = { legalValuesOf: (name: string) => (name === 'tier' ? new Set(['1', '2']) : undefined) }
  const refused = check({ contextName: 'tier', operator: 'NUM_EQ', value: '3' }, world)
  t.equal(refused?.kind, 'BadDataError')
  t.match(refused?.message, /"3" is not a legal value for the context field "tier"/)
  t.equal(check({ contextName: 'tier', operator: 'NUM_GT', value: '3' }, world)?.kind, 'BadDataError', 'every single-value operator')
  t.equal(check({ contextName: 'tier', operator: 'NUM_EQ', value: '1' }, world), undefined, 'a legal value passes')
  t.equal(check({ contextName: 'tier', operator: 'NUM_EQ', value: '1', values: ['3'] }, world), undefined, 'values are not checked for a single-value operator')
  t.equal(check({ contextName: 'tier', operator: 'NUM_EQ', value: 'x' }, world)?.message.includes('must be a number'), true, 'the type is checked first')
})

t.test('savedConstraint trims the values, leaves out empty ones and keeps the keys in the order they came, values added last', async (t) => {
  const base = { contextName: 'userId', operator: 'IN', caseInsensitive: false, inverted: true }
  const listed = savedConstraint({ ...base, values: [' a ', '', 'b', '  '] })
  t.same(listed, { ...base, values: ['a', 'b'] })
  t.same(Object.keys(listed), ['contextName', 'operator', 'caseInsensitive', 'inverted', 'values'])
  const single = savedConstraint({ ...base, operator: 'NUM_GT', value: '5' })
  t.same(Object.keys(single), ['contextName', 'operator', 'caseInsensitive', 'inverted', 'value', 'values'])
  t.same(single.values, [])
  const both = savedConstraint({ ...base, values: ['x'], value: 'y' })
  t.same(Object.keys(both), ['contextName', 'operator', 'caseInsensitive', 'inverted', 'values', 'value'])
  t.same(savedConstraint({ ...base }), { ...base, values: [] })
})

t.test('equal constraints are saved as one object, and constraints that differ in any field or in the order of their fields are not', async (t) => {
  const save = (input: Input) => savedConstraint(v.parse(constraintSchema, input))
  const a = save({ contextName: 'userId', operator: 'IN', values: ['a', ' b'] })
  t.equal(save({ contextName: 'userId', operator: 'IN', values: ['a', 'b '] }), a, 'the same after trimming: one object')
  t.same(a, { contextName: 'userId', operator: 'IN', caseInsensitive: false, inverted: false, values: ['a', 'b'] })
  t.not(save({ contextName: 'userId', operator: 'IN', values: ['b', 'a'] }), a, 'values in another order')
  t.not(save({ contextName: 'userId', operator: 'IN', values: ['a', 'b'], inverted: true }), a, 'inverted')
  t.not(save({ contextName: 'userId', operator: 'IN', values: ['a', 'b'], caseInsensitive: true }), a, 'case-insensitive')
  t.not(save({ contextName: 'email', operator: 'IN', values: ['a', 'b'] }), a, 'another field')
  t.not(save({ contextName: 'userId', operator: 'NOT_IN', values: ['a', 'b'] }), a, 'another operator')
  const valueFirst = save({ contextName: 'n', operator: 'NUM_EQ', value: '1' })
  const valuesFirst = save({ contextName: 'n', operator: 'NUM_EQ', values: [], value: '1' })
  t.not(valueFirst, valuesFirst, 'values added after value, and sent before it: clients see the order')
  t.same(Object.keys(valueFirst), ['contextName', 'operator', 'caseInsensitive', 'inverted', 'value', 'values'])
  t.same(Object.keys(valuesFirst), ['contextName', 'operator', 'caseInsensitive', 'inverted', 'values', 'value'])
  t.equal(save({ contextName: 'n', operator: 'NUM_EQ', values: [], value: '1' }), valuesFirst)
  t.not(save({ contextName: 'n', operator: 'NUM_EQ', value: '2' }), valueFirst, 'another value')
})

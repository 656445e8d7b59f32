import semver from 'semver'
import { RE2JS } from 're2js'
import type { Constraint } from '../schemas/shared.js'
import { DomainError, badData } from './errors.js'
import type { ProjectWorld } from './world.js'
import { orNoItems } from './no-items.js'

export const multiValueOperators = ['IN', 'NOT_IN', 'STR_ENDS_WITH', 'STR_STARTS_WITH', 'STR_CONTAINS', 'IN_CIDR'] as const
export const numberOperators = ['NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE'] as const
export const dateOperators = ['DATE_AFTER', 'DATE_BEFORE'] as const
export const semverOperators = ['SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT', 'SEMVER_GTE', 'SEMVER_LTE'] as const
export const operators = new Set<string>([...multiValueOperators, ...numberOperators, ...dateOperators, ...semverOperators, 'REGEX'])

const isIn = (list: readonly string[], op: string) => list.includes(op)

const singleValueRequired = 'Single-value constraint operators require a non-empty value.'

const constraintError = (message: string) =>
  badData(`Request validation failed: your request body or params contain invalid data: ${message}`, [{ message }])

// A constraint as a flag or segment keeps it: its values trimmed, the empty ones left out (values before
// value when both came, else after it: the order of the keys it came with, `values` added last). Built
// as a literal: `{ ...constraint, values }` gave nearly every constraint a hidden class of its own (V8:
// 1,163 classes for 3,388 imported constraints, some 300 bytes each), and filter() leaves room for 17
// values where one is kept.
export const savedConstraint = (constraint: Constraint): Constraint => {
  const { contextName, operator, caseInsensitive, inverted, value } = constraint
  const trimmed = (constraint.values ?? []).map((v) => v.trim())
  const values = orNoItems(trimmed.every((v) => v.length > 0) ? trimmed : trimmed.filter((v) => v.length > 0).slice())
  if (value === undefined) return { contextName, operator, caseInsensitive, inverted, values }
  return constraint.values === undefined ? { contextName, operator, caseInsensitive, inverted, value, values } : { contextName, operator, caseInsensitive, inverted, values, value }
}

// Unleash's write-side rules (SEMANTICS 2.4), minus its refusal of IN_CIDR and inverted REGEX,
// which the SDKs evaluate and the specification suite uses.
export const validateConstraint = (constraint: Constraint, world: Pick<ProjectWorld, 'legalValuesOf'>): DomainError | undefined => {
  const op = constraint.operator
  if (!operators.has(op)) return constraintError(`"operator" must be one of ${[...operators].join(', ')}; got "${op}"`)
  const values = constraint.values ?? []
  for (const value of values) {
    if (value.length < 1 || value.length > 100) return constraintError('Constraint values must be 1 to 100 characters long')
  }
  if (isIn(multiValueOperators, op)) {
    const legal = world.legalValuesOf(constraint.contextName)
    if (legal) {
      const illegal = values.filter((v) => !legal.has(v))
      if (illegal.length > 0) return constraintError(`${illegal.map((v) => `"${v}"`).join(', ')} is not a legal value for the context field "${constraint.contextName}"`)
    }
    return undefined
  }
  const value = constraint.value
  if (value === undefined || value === '') return constraintError(singleValueRequired)
  if (isIn(numberOperators, op) && Number.isNaN(Number(value))) return constraintError(`"value" must be a number for ${op}; got "${value}"`)
  if (isIn(dateOperators, op) && Number.isNaN(Date.parse(value))) return constraintError(`"value" must be a date-time for ${op}; got "${value}"`)
  if (isIn(semverOperators, op) && (!semver.valid(value) || value.startsWith('v'))) {
    return constraintError(`"value" must be a valid semver version for ${op}; got "${value}"`)
  }
  if (op === 'REGEX') {
    try {
      RE2JS.compile(value, constraint.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0)
    } catch {
      return constraintError(`"value" is not a valid RE2 regular expression: "${value.slice(0, 200)}"`)
    }
  }
  // Unleash 8.2 (side by side): a single value must be legal too (its `values` are not looked at).
  const legal = world.legalValuesOf(constraint.contextName)
  if (legal && !legal.has(value)) return constraintError(`"${value}" is not a legal value for the context field "${constraint.contextName}"`)
  return undefined
}

import semver from 'semver'
import { RE2JS } from 're2js'
import type { Constraint } from '../schemas/shared.js'
import { DomainError, badData } from './errors.js'
import type { ProjectWorld } from './world.js'
import { noItems, orNoItems } from './no-items.js'

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
  if (value === undefined) return shared({ contextName, operator, caseInsensitive, inverted, values })
  return shared(constraint.values === undefined ? { contextName, operator, caseInsensitive, inverted, value, values } : { contextName, operator, caseInsensitive, inverted, values, value })
}

// Equal saved constraints are one object, as a restore makes them (SharedStrings): flags repeat their
// constraints (about 11,000 distinct among 86,000 at 50,000 flags), and each flag created through the API
// kept its own, 4.8 MiB more than after a restart (issue 26). States are never changed in place, so one
// object serves every flag. The table holds them weakly, by a hash of their fields; a constraint whose
// hash a different live one holds is kept as it is.
const savedByHash = new Map<number, WeakRef<Constraint>>()
let liveAfterSweep = 0

const mixText = (hash: number, text: string): number => {
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return Math.imul(hash ^ text.length, 0x01000193)
}

// Which of savedConstraint's three layouts (no value; value before values; after them): a client sees the order.
const layoutOf = (c: Constraint): number => (c.value === undefined ? 0 : Object.keys(c)[4] === 'value' ? 1 : 2)

const hashOf = (c: Constraint): number => {
  let hash = mixText(mixText(0x811c9dc5, c.contextName), c.operator)
  hash = Math.imul(hash ^ ((c.caseInsensitive ? 1 : 0) | (c.inverted ? 2 : 0) | (layoutOf(c) << 2)), 0x01000193)
  if (c.value !== undefined) hash = mixText(hash, c.value)
  for (const value of c.values ?? noItems) hash = mixText(hash, value)
  return hash | 0
}

const sameConstraint = (a: Constraint, b: Constraint): boolean =>
  a.contextName === b.contextName &&
  a.operator === b.operator &&
  a.caseInsensitive === b.caseInsensitive &&
  a.inverted === b.inverted &&
  a.value === b.value &&
  layoutOf(a) === layoutOf(b) &&
  (a.values ?? noItems).length === (b.values ?? noItems).length &&
  (a.values ?? noItems).every((value, i) => value === b.values![i])

const shared = (constraint: Constraint): Constraint => {
  const hash = hashOf(constraint)
  const known = savedByHash.get(hash)?.deref()
  if (known !== undefined) return sameConstraint(known, constraint) ? known : constraint
  savedByHash.set(hash, new WeakRef(constraint))
  // The entries of constraints no flag holds any more go once they could be half the table.
  if (savedByHash.size > 2 * liveAfterSweep + 1024) {
    for (const [key, ref] of savedByHash) if (ref.deref() === undefined) savedByHash.delete(key)
    liveAfterSweep = savedByHash.size
  }
  return constraint
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

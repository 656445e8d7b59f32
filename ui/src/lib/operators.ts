// Constraint operators and the input that fits each (INTERFACE 2.1).
export const operators = [
  'IN', 'NOT_IN', 'STR_CONTAINS', 'STR_STARTS_WITH', 'STR_ENDS_WITH', 'NUM_EQ', 'NUM_GT', 'NUM_GTE', 'NUM_LT', 'NUM_LTE',
  'DATE_AFTER', 'DATE_BEFORE', 'SEMVER_EQ', 'SEMVER_GT', 'SEMVER_LT',
] as const
export type Operator = (typeof operators)[number]

export type InputKind = 'list' | 'number' | 'date' | 'semver'

export const inputKind = (operator: string): InputKind => {
  if (operator.startsWith('NUM_')) return 'number'
  if (operator.startsWith('DATE_')) return 'date'
  if (operator.startsWith('SEMVER_')) return 'semver'
  return 'list'
}

// Operators that read `values` (a list); the others read the single `value`.
export const takesValues = (operator: string) => inputKind(operator) === 'list'

export const caseInsensitiveApplies = (operator: string) => operator.startsWith('STR_') || operator === 'IN' || operator === 'NOT_IN'

const semver = /^v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/

// What is wrong with a single value for this operator, or undefined when it fits.
export const valueProblem = (operator: string, value: string): string | undefined => {
  const kind = inputKind(operator)
  if (kind === 'list') return undefined
  if (value.trim() === '') return 'a value is required'
  if (kind === 'number' && !Number.isFinite(Number(value))) return 'not a number'
  if (kind === 'semver' && !semver.test(value.trim())) return 'not a semantic version (like 1.2.3)'
  if (kind === 'date' && Number.isNaN(Date.parse(value))) return 'not a date'
  return undefined
}

// The list editor accepts values pasted with commas or new lines; blanks and repeats are dropped.
export const splitValues = (text: string, existing: readonly string[] = []): string[] => {
  const out = [...existing]
  for (const part of text.split(/[\n,]/)) {
    const value = part.trim()
    if (value && !out.includes(value)) out.push(value)
  }
  return out
}

// <input type="datetime-local"> speaks local time without a zone; the API wants an ISO instant.
export const toIsoInstant = (local: string): string => new Date(local).toISOString()
export const toLocalInput = (iso: string | undefined): string => {
  if (!iso) return ''
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return ''
  const pad = (n: number) => String(n).padStart(2, '0')
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`
}

import { Address4, Address6 } from 'ip-address'
import { RE2JS } from 're2js'
import { SemVer } from 'semver'
import { fnv1a, fnvBasis, fnvPrime } from './hash.js'
import type { EvalConstraint, EvalContext } from './types.js'

export type ContextTest = (ctx: EvalContext) => boolean
export type ContextLookup = (ctx: EvalContext) => string | undefined

// Identity matters: the compiler folds these constants away.
export const always: ContextTest = () => true
export const never: ContextTest = () => false

const stringOf = (v: unknown): string | undefined =>
  v === undefined || v === null ? undefined : typeof v === 'string' ? v : String(v)

// The SDK evaluates `{appName, environment: 'default', ...context}`; only
// environment has a default, so it alone needs the spread's semantics.
// A plain object's string environment is its own unless Object.prototype has one: read without Object.hasOwn
// (a call into the runtime, most of an `environment IN` flag's time: issue 26).
const environmentOf: ContextLookup = (ctx) => {
  const v = ctx.environment
  if (typeof v === 'string' && Object.getPrototypeOf(ctx) === Object.prototype && !('environment' in Object.prototype)) return v
  const own = Object.hasOwn(ctx, 'environment') ? v : 'default'
  return own === undefined || own === null ? stringOf(ctx.properties?.environment) : stringOf(own)
}

// Unleash: SDK helpers.ts resolveContextValue; top-level keys shadow properties. One function for every
// field, not a closure per field: a test calls it with its field, and an evaluation reaches one closure
// and its context per constraint instead of two.
export const valueOf = (ctx: EvalContext, field: string): string | undefined =>
  field === 'environment' ? environmentOf(ctx) : stringOf(ctx[field] ?? ctx.properties?.[field])

export const contextLookup = (field: string): ContextLookup => {
  if (field === 'environment') return environmentOf
  return (ctx) => stringOf(ctx[field] ?? ctx.properties?.[field])
}

// The clock can only change a DATE_* result when it reaches the constraint's date. Evaluations without a
// currentTime lower this to the nearest such date still ahead: until then, whatever they answered holds.
let clockSteadyUntil = Number.POSITIVE_INFINITY
export const clockWatch = {
  steadyUntil: (): number => clockSteadyUntil,
  restart: (from = Number.POSITIVE_INFINITY): void => {
    clockSteadyUntil = from
  },
}

const cleanValues = (values: unknown): string[] =>
  Array.isArray(values) ? values.filter((v) => !!v).map((v) => String(v).trim()) : []

const negate = (test: ContextTest): ContextTest => (test === always ? never : test === never ? always : (ctx) => !test(ctx))

// IN, or its negation (NOT_IN, an inverted IN) in the same closure: not a closure around it, which would be one
// more function and context to reach (issue 26).
const inTest = (field: string, values: string[], isNegated: boolean): ContextTest => {
  if (values.length === 0) return isNegated ? always : never
  if (values.length === 1) {
    const only = values[0]
    return isNegated ? (ctx) => valueOf(ctx, field) !== only : (ctx) => valueOf(ctx, field) === only
  }
  // Up to four values in the closure's own context, compared in turn: no Set and table to reach (issue 26).
  if (values.length === 2) {
    const [a, b] = values
    if (isNegated) {
      return (ctx) => {
        const c = valueOf(ctx, field)
        return c !== a && c !== b
      }
    }
    return (ctx) => {
      const c = valueOf(ctx, field)
      return c === a || c === b
    }
  }
  if (values.length === 3) {
    const [a, b, d] = values
    if (isNegated) {
      return (ctx) => {
        const c = valueOf(ctx, field)
        return c !== a && c !== b && c !== d
      }
    }
    return (ctx) => {
      const c = valueOf(ctx, field)
      return c === a || c === b || c === d
    }
  }
  if (values.length === 4) {
    const [a, b, d, e] = values
    if (isNegated) {
      return (ctx) => {
        const c = valueOf(ctx, field)
        return c !== a && c !== b && c !== d && c !== e
      }
    }
    return (ctx) => {
      const c = valueOf(ctx, field)
      return c === a || c === b || c === d || c === e
    }
  }
  // More: in a list sorted by code units, found by halving. A Set of 20 texts took 720 bytes of heap where
  // the list takes 220, and IN lists of tenants or users are common (issue 26: 4.8 MiB at 50,000 flags).
  const sorted = [...new Set(values)].sort()
  if (isNegated) {
    return (ctx) => {
      const c = valueOf(ctx, field)
      return c === undefined || !isInSorted(sorted, c)
    }
  }
  return (ctx) => {
    const c = valueOf(ctx, field)
    return c !== undefined && isInSorted(sorted, c)
  }
}

const isInSorted = (sorted: readonly string[], text: string): boolean => {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const value = sorted[middle]
    if (value === text) return true
    if (value < text) low = middle + 1
    else high = middle
  }
  return false
}

// Where the lowered value lies in the context value: at `from` (STR_STARTS_WITH), at the end
// (STR_ENDS_WITH), anywhere (STR_CONTAINS).
const enum Place {
  Start,
  End,
  Anywhere,
}

const places: Record<string, Place> = { STR_STARTS_WITH: Place.Start, STR_ENDS_WITH: Place.End, STR_CONTAINS: Place.Anywhere }

const matches = (place: Place, c: string, v: string): boolean =>
  place === Place.Start ? c.startsWith(v) : place === Place.End ? c.endsWith(v) : c.includes(v)

// Where the default locale lowers A-Z to a-z (not, e.g., Turkish), an ASCII context value is compared with
// the lowered values character by character, without the lowered copy toLocaleLowerCase would allocate per
// evaluation (issue 26).
const asciiLowersPlainly = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'.toLocaleLowerCase() === 'abcdefghijklmnopqrstuvwxyz'

const isAscii = (c: string): boolean => {
  for (let i = 0; i < c.length; i++) if (c.charCodeAt(i) > 127) return false
  return true
}

// c (ASCII) lowered equals v from c's index `at` on, for v's length.
const lowersTo = (c: string, at: number, v: string): boolean => {
  for (let j = 0; j < v.length; j++) {
    const x = c.charCodeAt(at + j)
    if ((x >= 65 && x <= 90 ? x + 32 : x) !== v.charCodeAt(j)) return false
  }
  return true
}

const lowerMatches = (place: Place, c: string, v: string): boolean => {
  const room = c.length - v.length
  if (room < 0) return false
  if (place === Place.Start) return lowersTo(c, 0, v)
  if (place === Place.End) return lowersTo(c, room, v)
  for (let at = 0; at <= room; at++) if (lowersTo(c, at, v)) return true
  return false
}

const stringTest = (field: string, place: Place, constraint: EvalConstraint): ContextTest => {
  const isCaseInsensitive = constraint.caseInsensitive === true
  const values = cleanValues(constraint.values).map((v) => (isCaseInsensitive ? v.toLocaleLowerCase() : v))
  if (values.length === 0) return never
  if (!isCaseInsensitive) {
    return (ctx) => {
      const c = valueOf(ctx, field)
      if (c === undefined) return false
      for (let i = 0; i < values.length; i++) if (matches(place, c, values[i])) return true
      return false
    }
  }
  return (ctx) => {
    const c = valueOf(ctx, field)
    if (c === undefined) return false
    if (asciiLowersPlainly && isAscii(c)) {
      for (let i = 0; i < values.length; i++) if (lowerMatches(place, c, values[i])) return true
      return false
    }
    const lowered = c.toLocaleLowerCase()
    for (let i = 0; i < values.length; i++) if (matches(place, lowered, values[i])) return true
    return false
  }
}

// A closure per operator: one comparison function called for every NUM_* constraint would be a call site
// that sees them all (issue 26).
const numberTest = (field: string, operator: string, value: unknown): ContextTest => {
  const target = Number(value)
  if (Number.isNaN(target)) return never
  // Number(undefined) is NaN, and NaN fails every comparison, as in the SDK.
  switch (operator) {
    case 'NUM_EQ':
      return (ctx) => Number(valueOf(ctx, field)) === target
    case 'NUM_GT':
      return (ctx) => Number(valueOf(ctx, field)) > target
    case 'NUM_GTE':
      return (ctx) => Number(valueOf(ctx, field)) >= target
    case 'NUM_LT':
      return (ctx) => Number(valueOf(ctx, field)) < target
    default:
      return (ctx) => Number(valueOf(ctx, field)) <= target
  }
}

// DATE_* compare context.currentTime whatever the contextName says (SDK), else the clock. Once the clock is past
// the date it stays past (observe() counts on that too): the test reads it no more (Date.now() is about 50 ns).
const dateTest = (operator: string, value: unknown): ContextTest => {
  const target = new Date(value as string).getTime()
  if (Number.isNaN(target)) return never
  const isAfter = operator === 'DATE_AFTER'
  let isClockPast = false
  return (ctx) => {
    const t = ctx.currentTime
    let time: number
    if (!t) {
      if (isClockPast) return isAfter
      time = Date.now()
      if (time > target) isClockPast = true
      // The clock can change this result when it reaches the date: until then, it holds.
      else if (target < clockSteadyUntil) clockSteadyUntil = target
    } else time = t instanceof Date ? t.getTime() : new Date(t as string).getTime()
    return isAfter ? time > target : time < target
  }
}

const semverOrders: Record<string, (order: number) => boolean> = {
  SEMVER_EQ: (o) => o === 0,
  SEMVER_GT: (o) => o > 0,
  SEMVER_GTE: (o) => o >= 0,
  SEMVER_LT: (o) => o < 0,
  SEMVER_LTE: (o) => o <= 0,
}

const parseSemver = (version: unknown): SemVer | undefined => {
  if (typeof version !== 'string') return undefined
  try {
    return new SemVer(version)
  } catch {
    return undefined
  }
}

// Context versions repeat (a few app releases per fleet), and parsing is the
// cost of a semver constraint; each constraint keeps a small bounded memo.
const SEMVER_MEMO_SIZE = 256

const semverTest = (field: string, accepts: (order: number) => boolean, value: unknown): ContextTest => {
  const target = parseSemver(value)
  if (target === undefined) return never
  const memo = new Map<string, boolean>()
  return (ctx) => {
    const c = valueOf(ctx, field)
    // Unleash: SDK isValidSemver also refuses a leading 'v' that semver would accept.
    if (!c || c.startsWith('v')) return false
    let result = memo.get(c)
    if (result === undefined) {
      const version = parseSemver(c)
      result = version !== undefined && accepts(version.compare(target))
      if (memo.size >= SEMVER_MEMO_SIZE) memo.clear()
      memo.set(c, result)
    }
    return result
  }
}

const regexTest = (field: string, constraint: EvalConstraint): ContextTest => {
  if (typeof constraint.value !== 'string') return never
  let regex: RE2JS
  try {
    regex = RE2JS.compile(constraint.value, constraint.caseInsensitive ? RE2JS.CASE_INSENSITIVE : 0)
  } catch {
    // Lookahead, backreferences and other non-RE2 syntax never match (SDK).
    return never
  }
  return (ctx) => {
    const c = valueOf(ctx, field)
    return c !== undefined && regex.test(c)
  }
}

export const parseAddress4 = (value: string): Address4 | undefined => {
  try {
    return new Address4(value)
  } catch {
    return undefined
  }
}

const parseAddress6 = (value: string): Address6 | undefined => {
  try {
    return new Address6(value)
  } catch {
    return undefined
  }
}

// ip-address parses through BigInt and bit strings (about a microsecond), so
// a plain dotted quad, by far the usual context value, is read here instead.
// Anything else (leading zeros, a /suffix, junk) goes to ip-address.
export const dottedQuad = (value: string): number => {
  const n = value.length
  if (n < 7 || n > 15) return -1
  let result = 0
  let octet = 0
  let digits = 0
  let dots = 0
  for (let i = 0; i < n; i++) {
    const c = value.charCodeAt(i)
    if (c === 46) {
      if (digits === 0 || ++dots > 3) return -1
      result = result * 256 + octet
      octet = 0
      digits = 0
    } else if (c >= 48 && c <= 57) {
      if (digits === 1 && octet === 0) return -1
      octet = octet * 10 + (c - 48)
      if (++digits > 3 || octet > 255) return -1
    } else return -1
  }
  if (dots !== 3 || digits === 0) return -1
  return result * 256 + octet
}

// A parsed Address4 is a dozen strings and arrays: a network keeps its text, and the rare value that is
// not a dotted quad parses it again (networkAddress).
export interface Ipv4Network {
  text: string
  correctForm: string
  bits: number
  prefix: number
}

export const ipv4Network = (value: string): Ipv4Network | undefined => {
  const address = parseAddress4(value)
  if (address === undefined) return undefined
  const bits = address.subnetMask
  const prefix = bits === 0 ? 0 : Number(address.bigInt()) >>> (32 - bits)
  // A plain address is its own correct form: its text serves, not a second string of it.
  const correctForm = address.correctForm()
  return { text: value, correctForm: correctForm === value ? value : correctForm, bits, prefix }
}

export const networkAddress = (network: Ipv4Network): Address4 => parseAddress4(network.text)!

// Same answer as ip-address isInSubnet for a host address (mask 32).
export const isInIpv4Network = (quad: number, network: Ipv4Network): boolean =>
  network.bits === 0 || quad >>> (32 - network.bits) === network.prefix

const defined = <T>(v: T | undefined): v is T => v !== undefined

// Unleash: SDK CidrOperator; equal, or inside a network of the same family.
const cidrTest = (field: string, values: string[]): ContextTest => {
  const networks4 = values.map(ipv4Network).filter(defined)
  const ranges6 = values.map(parseAddress6).filter(defined)
  const forms6 = ranges6.map((r) => r.correctForm())
  if (networks4.length === 0 && ranges6.length === 0) return never
  return (ctx) => {
    const c = valueOf(ctx, field)
    if (c === undefined) return false
    // An IPv4 address never contains ':' and an IPv6 one always does.
    if (c.includes(':')) {
      const address = ranges6.length > 0 ? parseAddress6(c) : undefined
      if (address === undefined) return false
      const form = address.correctForm()
      for (let i = 0; i < ranges6.length; i++) if (form === forms6[i] || address.isInSubnet(ranges6[i])) return true
      return false
    }
    if (networks4.length === 0) return false
    const quad = dottedQuad(c)
    if (quad >= 0) {
      // A host inside a network includes being equal to it.
      for (const network of networks4) if (isInIpv4Network(quad, network)) return true
      return false
    }
    const address = parseAddress4(c)
    if (address === undefined) return false
    const form = address.correctForm()
    for (const network of networks4) if (form === network.correctForm || address.isInSubnet(networkAddress(network))) return true
    return false
  }
}

const operatorTest = (constraint: EvalConstraint): ContextTest | undefined => {
  const { operator } = constraint
  const field = constraint.contextName
  switch (operator) {
    case 'IN':
    case 'NOT_IN':
      return inTest(field, cleanValues(constraint.values), (operator === 'NOT_IN') !== (constraint.inverted === true))
    case 'STR_STARTS_WITH':
    case 'STR_ENDS_WITH':
    case 'STR_CONTAINS':
      return stringTest(field, places[operator], constraint)
    case 'NUM_EQ':
    case 'NUM_GT':
    case 'NUM_GTE':
    case 'NUM_LT':
    case 'NUM_LTE':
      return numberTest(field, operator, constraint.value)
    case 'DATE_AFTER':
    case 'DATE_BEFORE':
      return dateTest(operator, constraint.value)
    case 'SEMVER_EQ':
    case 'SEMVER_GT':
    case 'SEMVER_GTE':
    case 'SEMVER_LT':
    case 'SEMVER_LTE':
      return semverTest(field, semverOrders[operator], constraint.value)
    case 'REGEX':
      return regexTest(field, constraint)
    case 'IN_CIDR':
      return cidrTest(field, cleanValues(constraint.values))
    default:
      return undefined
  }
}

// How much a constraint's test costs, roughly, for a conjunction to run the cheap ones first: a conjunction of
// tests without side effects answers the same in any order. undefined for DATE_*, whose reading of the clock
// observe() reports: no test moves across one (compile.ts).
export const constraintCost = (constraint: EvalConstraint | null | undefined): number | undefined => {
  if (!constraint) return 0
  switch (constraint.operator) {
    case 'IN':
    case 'NOT_IN':
      return Array.isArray(constraint.values) && constraint.values.length > 4 ? 1 : 0
    case 'NUM_EQ':
    case 'NUM_GT':
    case 'NUM_GTE':
    case 'NUM_LT':
    case 'NUM_LTE':
      return 1
    case 'STR_STARTS_WITH':
    case 'STR_ENDS_WITH':
    case 'STR_CONTAINS':
      return constraint.caseInsensitive === true ? 3 : 2
    case 'DATE_AFTER':
    case 'DATE_BEFORE':
      return undefined
    case 'SEMVER_EQ':
    case 'SEMVER_GT':
    case 'SEMVER_GTE':
    case 'SEMVER_LT':
    case 'SEMVER_LTE':
    case 'IN_CIDR':
      return 3
    case 'REGEX':
      return 4
    default:
      return 0
  }
}

// Unknown operators are false and `inverted` does not rescue them (SDK).
const compiledTest = (constraint: EvalConstraint): ContextTest => {
  const test = operatorTest(constraint)
  if (test === undefined) return never
  // IN and NOT_IN apply `inverted` themselves.
  const { operator } = constraint
  return constraint.inverted && operator !== 'IN' && operator !== 'NOT_IN' ? negate(test) : test
}

// Constraints repeat across flags and environments (a few apps, countries, plans): one test, its closure,
// context and values, for each distinct constraint while some compiled flag or segment holds it, instead of
// one per occurrence (issue 26: about two constraints a flag, most of the compiled flag's closures). A test
// is a function of the constraint's fields alone (a DATE_* one's memory of the clock being past its date
// holds for every holder), so equal fields may share it. Only constraints of plain texts are shared.
// They are found by a 32-bit hash of their fields, and the constraint first compiled (an immutable value of
// the flag's) confirms a match; a constraint whose hash another holds is compiled on its own. Keyed by the
// JSON text of the fields, the map held 2.8 MiB of keys at 50,000 flags, and long lists were not shared.
interface SharedTest {
  constraint: EvalConstraint
  test: WeakRef<ContextTest>
}
const sharedTests = new Map<number, SharedTest>()
const forgetTest = new FinalizationRegistry<number>((key) => {
  if (sharedTests.get(key)?.test.deref() === undefined) sharedTests.delete(key)
})

const isText = (value: unknown): value is string => typeof value === 'string'
const isBooleanOrAbsent = (value: unknown): boolean => value === undefined || typeof value === 'boolean'

// The text's units, then its length (so that texts in a row cannot run into each other).
const mixText = (hash: number, text: string): number => Math.imul(fnv1a(hash, text, 0, text.length) ^ text.length, fnvPrime)

export const constraintHash = (c: EvalConstraint): number => {
  const flags = (c.inverted === true ? 1 : 0) | (c.caseInsensitive === true ? 2 : 0) | (c.value === undefined ? 4 : 0) | (c.values === undefined ? 8 : 0)
  let hash = Math.imul(mixText(mixText(fnvBasis, c.contextName), c.operator) ^ flags, fnvPrime)
  if (c.value !== undefined) hash = mixText(hash, c.value)
  if (c.values !== undefined) for (const value of c.values) hash = mixText(hash, value)
  return hash | 0
}

const isShareable = (c: EvalConstraint): boolean =>
  isText(c.contextName) &&
  isText(c.operator) &&
  isBooleanOrAbsent(c.inverted) &&
  isBooleanOrAbsent(c.caseInsensitive) &&
  (c.value === undefined || isText(c.value)) &&
  (c.values === undefined || (Array.isArray(c.values) && c.values.every(isText)))

const sameTexts = (a: readonly string[] | undefined, b: readonly string[] | undefined): boolean =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((text, i) => text === b[i]))

const sameConstraint = (a: EvalConstraint, b: EvalConstraint): boolean =>
  a.contextName === b.contextName &&
  a.operator === b.operator &&
  (a.inverted === true) === (b.inverted === true) &&
  (a.caseInsensitive === true) === (b.caseInsensitive === true) &&
  a.value === b.value &&
  sameTexts(a.values, b.values)

export const compileConstraint = (constraint: EvalConstraint): ContextTest => {
  if (!isShareable(constraint)) return compiledTest(constraint)
  const key = constraintHash(constraint)
  const shared = sharedTests.get(key)
  const held = shared?.test.deref()
  if (held !== undefined) return sameConstraint(shared!.constraint, constraint) ? held : compiledTest(constraint)
  const test = compiledTest(constraint)
  if (test !== always && test !== never) {
    sharedTests.set(key, { constraint, test: new WeakRef(test) })
    forgetTest.register(test, key)
  }
  return test
}

// The distinct constraint tests compiled and still held (for tests).
export const sharedConstraintTests = (): number => sharedTests.size

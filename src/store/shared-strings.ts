// Values made smaller without changing any of them (issue 26, memory per flag): a string that repeats is
// one string, not one per place it occurs (a strategy's name, an operator, a context field, an
// environment, who created a flag). Two users:
// - A restore, with a table that lives for that restore. At 50,000 flags its decode made 1.66 million
//   strings with 212,000 different texts between them: 44 MiB of copies. msgpackr's native string
//   extractor also decodes a run of short strings as one string and hands out slices of it, each of
//   which kept its whole run alive: 587,000 slices holding 20,772 runs, 21 MiB. The table is an object,
//   not a Map: a text used as a property name is internalized, and V8 gives a slice its own copy then.
//   (Decoding without the extractor gave the same heap for 0.4 s more CPU.)
// - Every parsed request body (api/parse.ts), with one table for the process that starts again after
//   `keepAtMost` texts, and lists copied to their length (`exactLists`): valibot builds its lists by
//   push, which leaves room for 17 items where there is one, and a flag keeps them as long as it lives.
// Empty lists can be answered with one shared, frozen list the caller gives (`emptyList`), where the
// value is kept as state, which is never changed in place; so can equal small values (`sharedValues`):
// constraints repeat across flags (about 11,000 distinct of 86,000 at 50,000 flags), with their lists of
// values, and so do environments with no strategies.

// Longer strings are mostly unique (descriptions, lists of ids); the table would only hold them.
const sharedUpTo = 128

const emptyTable = () => Object.create(null) as Record<string, string | undefined>

export interface SharingOptions {
  // Texts held before the table starts again (a long-lived table meets ever new flag names).
  keepAtMost?: number
  // Lists are answered with copies of their own length.
  exactLists?: boolean
  // Every empty list is answered with this one.
  emptyList?: readonly unknown[]
  // Equal small values are answered with one of them (below): for values that are never changed in place,
  // as states are.
  sharedValues?: boolean
}

// A value is shared when it is a list of at most 32 short texts, or a plain object of at most 8 fields that
// holds a shared value (a list of texts, an empty list, another such object) and otherwise only short texts,
// booleans and null: a constraint and its list of values, an environment with no strategies. Objects of
// texts alone (a strategy's parameters, a lifecycle stage) are mostly unique: sharing them too took 4 MiB
// more off a restore of 50,000 flags but added 0.2-0.4 s to it, where these add about nothing.
const sharedValueFields = 8

const isKeyable = (item: unknown): boolean => item === null || typeof item === 'boolean' || (typeof item === 'string' && item.length <= sharedUpTo)

// FNV-1a over a text's UTF-16 units, then its length (texts in a row cannot run into each other).
const mixText = (hash: number, text: string): number => {
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return Math.imul(hash ^ text.length, 0x01000193)
}

const mixNumber = (hash: number, n: number): number => Math.imul(hash ^ n, 0x01000193)

// A list of short texts by a hash of them (a list of anything else: undefined). Exported for a test.
export const listHash = (list: readonly unknown[]): number | undefined => {
  if (list.length > sharedValueFields * 4) return undefined
  let hash = 0x811c9dc5
  for (const item of list) {
    if (typeof item !== 'string' || item.length > sharedUpTo) return undefined
    hash = mixText(hash, item)
  }
  return hash | 0
}

const sameList = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((item, i) => item === b[i])

const sameRecord = (a: Record<string, unknown>, b: Record<string, unknown>, keys: readonly string[]): boolean => {
  const other = Object.keys(b)
  return other.length === keys.length && keys.every((key, i) => other[i] === key && a[key] === b[key])
}

export class SharedStrings {
  private strings = emptyTable()
  private count = 0
  // Whether a string met since this was last cleared was a repeat (another string of its text is
  // returned). Strings compare by text, so `===` cannot tell the shared one from the decoded one.
  private repeats = false
  // sharedValues: the values met so far by their key, and the number each one shared is known by (a value
  // shared into another's key by its number).
  private readonly lists = new Map<number, unknown[]>()
  private readonly records = new Map<number, Record<string, unknown>>()
  private readonly valueIds = new Map<object, number>()

  constructor(private readonly options: SharingOptions = {}) {}

  // How many texts are held (one string each), for a test: JavaScript cannot tell two strings of one
  // text apart.
  get size(): number {
    return this.count
  }

  // `value` with its repeated strings shared: plain objects and lists are changed in place (lists are
  // copied with `exactLists`), a Map or Set with a repeated key is replaced. Other objects (typed arrays,
  // dates, class instances) are left as they are.
  share(value: unknown): unknown {
    if (typeof value === 'string') return this.string(value)
    if (value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) {
      if (value.length === 0 && this.options.emptyList) return this.options.emptyList
      const list = this.options.exactLists ? value.slice() : value
      for (let i = 0; i < list.length; i++) list[i] = this.share(list[i])
      return this.options.sharedValues ? this.sharedList(list) : list
    }
    // Exactly these kinds: a subclass (a PersistentMap is a Map) has its own ways.
    const prototype: unknown = Object.getPrototypeOf(value)
    if (prototype === Map.prototype) return this.map(value as Map<unknown, unknown>)
    if (prototype === Set.prototype) return this.set(value as Set<unknown>)
    if (prototype !== Object.prototype && prototype !== null) return value
    const record = value as Record<string, unknown>
    const keys = Object.keys(record)
    // Whether the record may be shared (see sharedValueFields), found as its fields are shared.
    let candidate = this.options.sharedValues === true && prototype === Object.prototype && keys.length <= sharedValueFields
    let holdsShared = false
    for (const key of keys) {
      // An own `__proto__` (JSON.parse makes one) is left as it is: assigning it would set the prototype.
      if (key === '__proto__') {
        candidate = false
        continue
      }
      const item = this.share(record[key])
      record[key] = item
      if (!candidate) continue
      if (item === null || typeof item !== 'object') candidate = isKeyable(item)
      else if (item === this.options.emptyList || this.valueIds.has(item)) holdsShared = true
      else candidate = false
    }
    return candidate && holdsShared ? this.sharedRecord(record, keys) : value
  }

  // The list met before with the same texts, or this one, kept for the next. Values are found by a hash of
  // them and confirmed by their items; one whose hash another holds is left as it is.
  private sharedList(list: unknown[]): unknown[] {
    const hash = listHash(list)
    if (hash === undefined) return list
    const known = this.lists.get(hash)
    if (known !== undefined) return sameList(known, list) ? known : list
    this.lists.set(hash, list)
    this.valueIds.set(list, this.valueIds.size + 1)
    return list
  }

  // The same for a record of short texts, booleans, null and shared values (a shared value by its number).
  private sharedRecord(record: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
    // The fields' names are left out of the hash (records that share values mostly share names too): the
    // match is confirmed with them.
    let hash = mixNumber(0x811c9dc5, keys.length)
    for (const key of keys) {
      const item = record[key]
      if (typeof item === 'string') hash = mixText(hash, item)
      else if (item !== null && typeof item === 'object') hash = mixNumber(hash, item === this.options.emptyList ? 0 : this.valueIds.get(item)!)
      else hash = mixNumber(hash, item === null ? -1 : item ? -2 : -3)
    }
    hash |= 0
    const known = this.records.get(hash)
    if (known !== undefined) return sameRecord(record, known, keys) ? known : record
    this.records.set(hash, record)
    this.valueIds.set(record, this.valueIds.size + 1)
    return record
  }

  private string(text: string): string {
    if (text.length > sharedUpTo) return text
    const known = this.strings[text]
    if (known !== undefined) {
      this.repeats = true
      return known
    }
    if (this.count === this.options.keepAtMost) {
      this.strings = emptyTable()
      this.count = 0
    }
    this.strings[text] = text
    this.count++
    return text
  }

  // Keys are shared too: a Map's keys are a good part of its strings (flag names, environments).
  private map(map: Map<unknown, unknown>): Map<unknown, unknown> {
    const entries: [unknown, unknown][] = []
    let keyRepeats = false
    for (const [key, item] of map) {
      this.repeats = false
      const sharedKey = this.share(key)
      keyRepeats ||= this.repeats
      entries.push([sharedKey, this.share(item)])
    }
    if (keyRepeats) return new Map(entries)
    for (const [key, item] of entries) map.set(key, item)
    return map
  }

  private set(set: Set<unknown>): Set<unknown> {
    let itemRepeats = false
    const items = [...set].map((item) => {
      this.repeats = false
      const shared = this.share(item)
      itemRepeats ||= this.repeats
      return shared
    })
    return itemRepeats ? new Set(items) : set
  }
}

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
// value is kept as state, which is never changed in place.

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
}

export class SharedStrings {
  private strings = emptyTable()
  private count = 0
  // Whether a string met since this was last cleared was a repeat (another string of its text is
  // returned). Strings compare by text, so `===` cannot tell the shared one from the decoded one.
  private repeats = false

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
      if (this.options.exactLists) {
        const list = value.slice()
        for (let i = 0; i < list.length; i++) list[i] = this.share(list[i])
        return list
      }
      for (let i = 0; i < value.length; i++) value[i] = this.share(value[i])
      return value
    }
    // Exactly these kinds: a subclass (a PersistentMap is a Map) has its own ways.
    const prototype: unknown = Object.getPrototypeOf(value)
    if (prototype === Map.prototype) return this.map(value as Map<unknown, unknown>)
    if (prototype === Set.prototype) return this.set(value as Set<unknown>)
    if (prototype !== Object.prototype && prototype !== null) return value
    const record = value as Record<string, unknown>
    // An own `__proto__` (JSON.parse makes one) is left as it is: assigning it would set the prototype.
    for (const key of Object.keys(record)) if (key !== '__proto__') record[key] = this.share(record[key])
    return value
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

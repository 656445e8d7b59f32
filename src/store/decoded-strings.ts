// A decoded snapshot made smaller without changing any value in it (issue 26, memory per flag): a string
// that repeats is one string, not one per place it was decoded (a strategy's name, an operator, a
// context field, an environment, who created a flag). At 50,000 flags the decode made 1.66 million
// strings with 212,000 different texts between them: 44 MiB of copies.
// The table lives for one restore (DecodedStrings), so nothing is kept past it. It is an object, not a
// Map: a text used as a property name is internalized, and V8 gives a slice of a longer string its own
// copy then. msgpackr's native string extractor decodes a run of short strings as one string and hands
// out slices of it, each of which kept its whole run alive: 587,000 slices holding 20,772 runs, 21 MiB
// at 50,000 flags. (Decoding without the extractor gave the same heap for 0.4 s more CPU.)
// Empty lists are left as they are: one frozen list for all of them saved 15 MiB more, but arrays of
// another elements kind in the flags made each flag creation 15-20 % dearer afterwards.

// Longer strings are mostly unique (descriptions, lists of ids); the table would only hold them.
const sharedUpTo = 128

export class DecodedStrings {
  private readonly strings: Record<string, string | undefined> = Object.create(null) as Record<string, string | undefined>
  private count = 0
  // Whether a string met since this was last cleared was a repeat (another string of its text is
  // returned). Strings compare by text, so `===` cannot tell the shared one from the decoded one.
  private repeats = false

  // How many texts are held (one string each), for a test: JavaScript cannot tell two strings of one
  // text apart.
  get size(): number {
    return this.count
  }

  // `value` with its repeated strings shared: plain objects and lists are changed in place, a Map or Set
  // with a repeated key is replaced. Other objects (typed arrays, dates, class instances) are left as
  // they are.
  share(value: unknown): unknown {
    if (typeof value === 'string') return this.string(value)
    if (value === null || typeof value !== 'object') return value
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) value[i] = this.share(value[i])
      return value
    }
    // Exactly these kinds: a subclass (a PersistentMap is a Map) has its own ways.
    const prototype: unknown = Object.getPrototypeOf(value)
    if (prototype === Map.prototype) return this.map(value as Map<unknown, unknown>)
    if (prototype === Set.prototype) return this.set(value as Set<unknown>)
    if (prototype !== Object.prototype && prototype !== null) return value
    const record = value as Record<string, unknown>
    for (const key of Object.keys(record)) record[key] = this.share(record[key])
    return value
  }

  private string(text: string): string {
    if (text.length > sharedUpTo) return text
    const known = this.strings[text]
    if (known !== undefined) {
      this.repeats = true
      return known
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

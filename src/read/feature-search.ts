import type { EventRecord } from '../domain/events.js'
import type { Environment } from '../domain/instance-state.js'
import type { Feature, LifecycleStage, ProjectState } from '../domain/project-state.js'
import {
  lifecycleMatcher,
  matchesDay,
  matchesValue,
  segmentMatcher,
  stateMatcher,
  tagMatcher,
  textMatcher,
  type FeatureSearch,
} from '../domain/search.js'
import { isFavoriteOf } from '../domain/favorites.js'
import type { Tag } from '../schemas/shared.js'
import { imageUrlOf } from './people-views.js'
import { Slices } from '../next-turn.js'
import { orNoItems } from '../domain/no-items.js'

// The flags of every project as GET /api/admin/search/features finds them. One row per flag (archived
// ones too), kept in two orders (creation, name) and indexed by project, type, tag and segment: a
// committed event re-reads only the flags it names, and a search walks either one order or, when an
// indexed filter narrows it down, only the flags that filter lists.

// A flag and what searches read of it besides the flag's own fields: its place in the orders (creation
// time, name) and the segments its strategies use. The flag's fields are read from the flag (a copy of
// them per row was 3.2 MiB at 50,000 flags, issue 26; the flags have one hidden class since they are kept
// as literals, updateFeatureIn).
interface Row {
  feature: Feature
  // The first thing every search reads of every flag, kept beside what the orders read.
  archived: boolean
  createdAtMs: number
  lowerName: string
  // One segment id per use by a strategy (any environment).
  segmentUses: number[]
}

// What a search and its rows read besides the flags: who asks, and facts kept outside the flags' state.
export interface FeatureSearchContext {
  viewer?: string
  environments: ReadonlyMap<string, Environment>
  // The flag's current lifecycle stage, metric-driven ones included.
  lifecycle: (feature: Feature) => LifecycleStage
  lastSeen: (feature: string, environment: string) => string | null
  // SDK evaluations of the last hour.
  counts: (feature: string, environment: string) => { yes: number; no: number }
  segmentName: (id: number) => string | undefined
  segmentIdsNamed: (names: readonly string[]) => number[]
  // Open change requests touching the flag in the environment.
  changeRequestIds: (feature: string, environment: string) => number[]
  user: (id: number) => { name: string | null; username: string | null; email?: string | null } | undefined
}

export interface FeatureSearchHit {
  feature: Feature
  // The environments and tags the flag is listed with: a status or lastSeenAt filter keeps only the
  // matching environments (undefined: all), a tag filter the matching tags (Unleash filters joined rows).
  environments?: string[]
  tags: readonly Tag[]
  isFavorite: boolean
}

export interface FeatureSearchResult {
  hits: FeatureSearchHit[]
  total: number
}

// Records that change the flags of a whole project without naming one.
const projectWide = new Set(['project-environment-added', 'project-environment-removed', 'project-deleted', 'project-import', 'drop-features'])

// More changes than this in one commit re-sort the orders at the next search instead of one insertion each.
const resortAbove = 512

const createdOrder = (a: Row, b: Row) => a.createdAtMs - b.createdAtMs || (a.feature.name < b.feature.name ? -1 : a.feature.name > b.feature.name ? 1 : 0)
const nameOrder = (a: Row, b: Row) => (a.feature.name < b.feature.name ? -1 : a.feature.name > b.feature.name ? 1 : 0)

// The first index in `list` (sorted by `order`) whose row does not come before `row`.
const lowerBound = (list: Row[], row: Row, order: (a: Row, b: Row) => number): number => {
  let low = 0
  let high = list.length
  while (low < high) {
    const mid = (low + high) >>> 1
    if (order(list[mid], row) < 0) low = mid + 1
    else high = mid
  }
  return low
}

// Rows kept in one order, in chunks of at most 512: adding or removing a row searches the chunks'
// last rows, then its chunk (O(log n)), and moves at most a chunk's rows, where one array of every row
// moved half of them (at 50,000 flags a create moved 25,000 pointers in each of the two orders). A
// search reads the rows as one array, made again on the first search after a change (the search walks
// them all anyway).
const chunkMax = 512

class OrderedRows {
  private chunks: Row[][] = []
  private flat: Row[] | undefined = []

  constructor(private readonly order: (a: Row, b: Row) => number) {}

  // From rows already in this order.
  static of(rows: readonly Row[], order: (a: Row, b: Row) => number): OrderedRows {
    const ordered = new OrderedRows(order)
    for (let i = 0; i < rows.length; i += chunkMax / 2) ordered.chunks.push(rows.slice(i, i + chunkMax / 2))
    ordered.flat = undefined
    return ordered
  }

  // The chunk a row belongs in: the first whose last row does not come before it, or the last one.
  private chunkFor(row: Row): number {
    let low = 0
    let high = this.chunks.length
    while (low < high) {
      const mid = (low + high) >>> 1
      const chunk = this.chunks[mid]
      if (this.order(chunk[chunk.length - 1], row) < 0) low = mid + 1
      else high = mid
    }
    return Math.min(low, this.chunks.length - 1)
  }

  insert(row: Row): void {
    this.flat = undefined
    if (this.chunks.length === 0) {
      this.chunks.push([row])
      return
    }
    const c = this.chunkFor(row)
    const chunk = this.chunks[c]
    chunk.splice(lowerBound(chunk, row, this.order), 0, row)
    if (chunk.length > chunkMax) this.chunks.splice(c + 1, 0, chunk.splice(chunkMax / 2))
  }

  // `old` is in it: it is taken out, or `row` (in the same place in this order) takes its place.
  remove(old: Row): void {
    this.flat = undefined
    const c = this.chunkFor(old)
    const chunk = this.chunks[c]
    chunk.splice(lowerBound(chunk, old, this.order), 1)
    if (chunk.length === 0) this.chunks.splice(c, 1)
  }

  replace(old: Row, row: Row): void {
    this.flat = undefined
    const chunk = this.chunks[this.chunkFor(old)]
    chunk[lowerBound(chunk, old, this.order)] = row
  }

  toArray(): Row[] {
    this.flat ??= this.chunks.flat()
    return this.flat
  }
}

const addTo = <K>(index: Map<K, Set<string>>, key: K, name: string) => {
  let names = index.get(key)
  if (!names) index.set(key, (names = new Set()))
  names.add(name)
}

const removeFrom = <K>(index: Map<K, Set<string>>, key: K, name: string) => {
  const names = index.get(key)
  if (!names) return
  names.delete(name)
  if (names.size === 0) index.delete(key)
}

const tagKey = (tag: Tag) => `${tag.type}:${tag.value}`

const segmentUsesOf = (feature: Feature): number[] => {
  const uses: number[] = []
  for (const env of feature.environments.values()) for (const strategy of env.strategies) uses.push(...strategy.segments)
  return orNoItems(uses)
}

const rowOf = (feature: Feature): Row => {
  const createdAtMs = Date.parse(feature.createdAt)
  return {
    feature,
    archived: feature.archived,
    createdAtMs: Number.isNaN(createdAtMs) ? 0 : createdAtMs,
    lowerName: feature.name.toLowerCase(),
    segmentUses: segmentUsesOf(feature),
  }
}

// Whether two rows of one flag are listed under the same tags, segments and parents.
const sameIndexKeys = (a: Row, b: Row): boolean =>
  a.archived === b.archived &&
  a.feature.tags === b.feature.tags &&
  a.feature.dependencies === b.feature.dependencies &&
  a.segmentUses.length === b.segmentUses.length &&
  a.segmentUses.every((id, i) => id === b.segmentUses[i])

// Every flag of a state (an immutable value, so it may be walked across turns), by project and name.
function* flagsOf(projects: ReadonlyMap<string, ProjectState>): Generator<readonly [string, string]> {
  for (const [id, project] of projects) for (const name of project.features.keys()) yield [id, name]
}

export class FeatureSearchIndex {
  // Built by warm(), warmInSlices() or the first search from the committed state, then kept up by apply().
  private rows: Map<string, Row> | undefined
  // While warmInSlices() runs: the flags of the state it began from that it has yet to read.
  private unread: Iterator<readonly [string, string]> | undefined
  private byCreated = new OrderedRows(createdOrder)
  private byName = new OrderedRows(nameOrder)
  private ordersStale = false
  private readonly byTag = new Map<string, Set<string>>()
  private readonly bySegment = new Map<number, Set<string>>()
  // Active flags that depend on each parent.
  private readonly childrenOf = new Map<string, Set<string>>()
  // Rows made so far: a test's proof that a commit re-reads only the flags it names; and rows entered
  // in the project, type, tag and segment indexes (a change that leaves what they read enters none).
  readonly counters = { rowsMade: 0, rowsIndexed: 0 }

  constructor(private readonly projects: () => ReadonlyMap<string, ProjectState>) {}

  // The committed state changed under the index (a replica restored a snapshot): build it again.
  reset(): void {
    this.rows = undefined
    this.unread = undefined
    this.byCreated = new OrderedRows(createdOrder)
    this.byName = new OrderedRows(nameOrder)
    this.ordersStale = false
    for (const index of [this.byTag, this.bySegment, this.childrenOf]) index.clear()
  }

  // Builds the index now rather than on the first search (50,000 flags take a few hundred ms).
  warm(): void {
    this.ordered()
  }

  // The same in slices of about `sliceMs`, with `pause()` between them, so that requests are served
  // meanwhile (at 50,000 flags the whole build blocked the event loop for 200 ms). The orders are kept
  // one row at a time as the rows are made, and apply() keeps what is read so far; a search or
  // dependencyType() meanwhile reads the rest at once, and a reset() ends it.
  async warmInSlices(pause: () => Promise<void>, sliceMs = 4): Promise<void> {
    if (this.rows) return
    const unread = flagsOf(this.projects())
    this.rows = new Map()
    this.ordersStale = false
    this.byCreated = new OrderedRows(createdOrder)
    this.byName = new OrderedRows(nameOrder)
    this.unread = unread
    const slices = new Slices(pause, sliceMs)
    while (this.unread === unread && this.readOne(unread)) if (slices.due) await slices.next()
  }

  // Reads one flag the warm-up has not read as it is now (apply() may have read it already, or it may
  // be gone); false when none is left.
  private readOne(unread: Iterator<readonly [string, string]>): boolean {
    const next = unread.next()
    if (next.done) {
      if (this.unread === unread) this.unread = undefined
      return false
    }
    const [project, name] = next.value
    this.refresh(name, this.locate(name, project))
    return true
  }

  private readUnread(): void {
    const unread = this.unread
    if (unread) while (this.readOne(unread));
  }

  // Committed records: the committed state already holds them.
  apply(records: readonly EventRecord[]): void {
    const rows = this.rows
    if (!rows) return
    const features = new Map<string, string | undefined>()
    const projects = new Set<string>()
    for (const record of records) {
      if (record.featureName) features.set(record.featureName, record.project ?? undefined)
      else if (record.project && projectWide.has(record.type)) projects.add(record.project)
    }
    const state = this.projects()
    for (const project of projects) {
      // Its flags that left it (a project deleted): a walk of every row, for a record that is rare.
      const kept = state.get(project)?.features
      for (const [name, row] of rows) if (row.feature.project === project && !kept?.has(name)) features.set(name, undefined)
      for (const name of state.get(project)?.features.keys() ?? []) features.set(name, project)
    }
    if (features.size > resortAbove) this.ordersStale = true
    for (const [name, hint] of features) this.refresh(name, this.locate(name, hint))
  }

  private locate(name: string, hint: string | undefined): Feature | undefined {
    const state = this.projects()
    const hinted = hint === undefined ? undefined : state.get(hint)?.features.get(name)
    if (hinted) return hinted
    const indexed = this.rows?.get(name)?.feature.project
    const there = indexed === undefined ? undefined : state.get(indexed)?.features.get(name)
    if (there) return there
    for (const project of state.values()) {
      const found = project.features.get(name)
      if (found) return found
    }
    return undefined
  }

  private build(): Map<string, Row> {
    const rows = new Map<string, Row>()
    this.rows = rows
    this.ordersStale = true
    for (const project of this.projects().values()) for (const feature of project.features.values()) this.refresh(feature.name, feature)
    return rows
  }

  // Brings one flag's row to `feature` (undefined: the flag is gone).
  private refresh(name: string, feature: Feature | undefined): void {
    const rows = this.rows!
    const old = rows.get(name)
    if (old?.feature === feature) return
    if (!feature) {
      if (!old) return
      this.unindex(old)
      rows.delete(name)
      if (!this.ordersStale) {
        this.byCreated.remove(old)
        this.byName.remove(old)
      }
      return
    }
    const row = rowOf(feature)
    this.counters.rowsMade++
    if (old && old.createdAtMs === row.createdAtMs) {
      // Same name and creation time: the row keeps its place in both orders, so it is brought up to
      // date where it is (the orders and their flat copy hold it), and re-indexed only when what the
      // indexes read of it changed (a description or a strategy's change leaves them).
      const reindex = !sameIndexKeys(old, row)
      if (reindex) this.unindex(old)
      Object.assign(old, row)
      if (reindex) this.index(old)
      return
    }
    if (old) this.unindex(old)
    rows.set(name, row)
    this.index(row)
    if (!this.ordersStale) {
      if (old) {
        // Created again: the row keeps its place in the name order and moves in the creation order.
        this.byName.replace(old, row)
        this.byCreated.remove(old)
        this.byCreated.insert(row)
      } else {
        this.byCreated.insert(row)
        this.byName.insert(row)
      }
    }
  }

  private index(row: Row): void {
    this.counters.rowsIndexed++
    const { name, tags, archived, dependencies } = row.feature
    for (const tag of tags) addTo(this.byTag, tagKey(tag), name)
    for (const id of row.segmentUses) addTo(this.bySegment, id, name)
    if (!archived) for (const d of dependencies) addTo(this.childrenOf, d.feature, name)
  }

  private unindex(row: Row): void {
    const { name, tags, dependencies } = row.feature
    for (const tag of tags) removeFrom(this.byTag, tagKey(tag), name)
    for (const id of row.segmentUses) removeFrom(this.bySegment, id, name)
    for (const d of dependencies) removeFrom(this.childrenOf, d.feature, name)
  }

  private ordered(): { byCreated: Row[]; byName: Row[] } {
    this.readUnread()
    const rows = this.rows ?? this.build()
    if (this.ordersStale) {
      const byCreated = [...rows.values()].sort(createdOrder)
      this.byCreated = OrderedRows.of(byCreated, createdOrder)
      this.byName = OrderedRows.of([...byCreated].sort(nameOrder), nameOrder)
      this.ordersStale = false
    }
    return { byCreated: this.byCreated.toArray(), byName: this.byName.toArray() }
  }

  // 'parent' when active flags depend on it, 'child' when it depends on one.
  dependencyType(feature: Feature): 'parent' | 'child' | null {
    if (feature.dependencies.length > 0) return 'child'
    this.readUnread()
    return (this.childrenOf.get(feature.name)?.size ?? 0) > 0 ? 'parent' : null
  }

  // The flags an indexed filter lists, when that is fewer than an eighth of all: the search then sorts
  // those instead of walking every flag (sorting more costs about as much as the walk). A project's flags
  // are its state's; a type is not indexed (a few types share every flag, and a set of names per type and
  // per project was 2.6 MiB at 50,000 flags, issue 26): a search by type walks the flags.
  private narrowed(search: FeatureSearch, ctx: FeatureSearchContext, total: number): Set<string> | undefined {
    const candidates: Set<string>[] = []
    const unionOf = (sets: (Set<string> | undefined)[]) => {
      const present = sets.filter((s): s is Set<string> => s !== undefined)
      if (present.length === 1) return present[0]
      const union = new Set<string>()
      for (const set of present) for (const name of set) union.add(name)
      return union
    }
    const positive = (operator: string) => operator === 'IS' || operator === 'IS_ANY_OF' || operator === 'INCLUDE' || operator === 'INCLUDE_ANY_OF'
    if (search.project && positive(search.project.operator)) {
      const state = this.projects()
      const features = search.project.values.map((p) => state.get(p)?.features).filter((f) => f !== undefined)
      // Made into a set only when it narrows the walk.
      if (features.reduce((size, f) => size + f.size, 0) * 8 < total) candidates.push(new Set(features.flatMap((f) => [...f.keys()])))
    }
    if (search.tag && (positive(search.tag.operator) || search.tag.operator === 'INCLUDE_ALL_OF')) {
      candidates.push(unionOf(search.tag.tags.map((t) => this.byTag.get(tagKey(t)))))
    }
    if (search.segment && (positive(search.segment.operator) || search.segment.operator === 'INCLUDE_ALL_OF')) {
      candidates.push(unionOf(ctx.segmentIdsNamed(search.segment.values).map((id) => this.bySegment.get(id))))
    }
    const smallest = candidates.sort((a, b) => a.size - b.size)[0]
    return smallest && smallest.size * 8 < total ? smallest : undefined
  }

  search(search: FeatureSearch, ctx: FeatureSearchContext): FeatureSearchResult {
    const { byCreated, byName } = this.ordered()
    const rows = this.rows!
    const byNameFirst = search.sortBy.by === 'name'
    const narrowed = this.narrowed(search, ctx, rows.size)
    let walk: Row[]
    if (narrowed) {
      walk = [...narrowed].flatMap((name) => rows.get(name) ?? []).sort(byNameFirst ? nameOrder : createdOrder)
    } else walk = byNameFirst ? byName : byCreated
    if (byNameFirst && search.sortOrder === 'desc') walk = [...walk].reverse()

    const found = this.filter(walk, search, ctx)
    const ordered = this.sortRows(found, search, ctx)
    const page = ordered.slice(search.offset, search.offset + search.limit)
    const tags = tagMatcher(search.tag)
    const environments = this.environmentKeeper(search, ctx)
    const hits = page.map((row) => ({
      feature: row.feature,
      environments: environments(row.feature) ?? undefined,
      tags: tags(row.feature.tags) ?? [],
      isFavorite: isFavoriteOf(row.feature.favoritedBy, ctx.viewer),
    }))
    // Unleash counts on the rows of the page: past the last flag, the total is 0.
    return { hits, total: page.length > 0 ? ordered.length : 0 }
  }

  // The flags found, in walking order: the cheap checks first, one loop with one call target per check
  // (a list of check closures made every call site megamorphic and the walk four times slower), and
  // nothing allocated for a flag that has no tag, status or lastSeenAt filter to pass.
  private filter(walk: readonly Row[], search: FeatureSearch, ctx: FeatureSearchContext): Row[] {
    const { archived, project, type, createdBy, createdAt, favorite } = search
    const viewer = ctx.viewer
    const lifecycle = search.lifecycle ? lifecycleMatcher(search.lifecycle, archived) : undefined
    const text = search.terms.length > 0 ? textMatcher(search.terms) : undefined
    const state = search.state ? stateMatcher(search.state) : undefined
    const segments = search.segment ? segmentMatcher(search.segment) : undefined
    const tags = search.tag ? tagMatcher(search.tag) : undefined
    const environments = search.status.length > 0 || search.lastSeenAt ? this.environmentKeeper(search, ctx) : undefined
    const found: Row[] = []
    for (const row of walk) {
      if (lifecycle ? !lifecycle(row.archived, ctx.lifecycle(row.feature).stage) : row.archived !== archived) continue
      if (text && !text(row.lowerName, row.feature.description)) continue
      if (project && !matchesValue(project, row.feature.project)) continue
      if (type && !matchesValue(type, row.feature.type)) continue
      if (createdBy && !matchesValue(createdBy, row.feature.createdByUserId ?? null)) continue
      if (state && !state(row.feature)) continue
      if (createdAt && !matchesDay(createdAt, row.createdAtMs)) continue
      if (favorite !== undefined && isFavoriteOf(row.feature.favoritedBy, viewer) !== favorite) continue
      if (segments && !segments(row.segmentUses.map((id) => ctx.segmentName(id)).filter((name): name is string => name !== undefined))) continue
      if (tags && tags(row.feature.tags) === undefined) continue
      if (environments && environments(row.feature) === null) continue
      found.push(row)
    }
    return found
  }

  // The environments a flag is listed with: undefined for all of them, null when a status or lastSeenAt
  // filter keeps none (both filter Unleash's rows of flag and environment).
  private environmentKeeper(search: FeatureSearch, ctx: FeatureSearchContext): (feature: Feature) => string[] | undefined | null {
    const { status, lastSeenAt } = search
    if (status.length === 0 && !lastSeenAt) return () => undefined
    return (feature) => {
      const kept = [...feature.environments.keys()].filter((env) => {
        if (status.length > 0 && !status.some((s) => s.environment === env && s.enabled === feature.environments.get(env)!.enabled)) return false
        if (!lastSeenAt) return true
        const seen = ctx.lastSeen(feature.name, env)
        return matchesDay(lastSeenAt, seen === null ? null : Date.parse(seen))
      })
      return kept.length > 0 ? kept : null
    }
  }

  // Rows arrive in creation order (or name order for sortBy=name); ties in every other order stay in
  // creation order, as Unleash ranks them (created_at, then name).
  private sortRows(rows: Row[], search: FeatureSearch, ctx: FeatureSearchContext): Row[] {
    const desc = search.sortOrder === 'desc'
    let ordered: Row[]
    switch (search.sortBy.by) {
      case 'name':
        ordered = rows
        break
      case 'createdAt':
        ordered = desc ? newestFirst(rows) : rows
        break
      case 'type':
        ordered = grouped(rows, (row) => row.feature.type, desc)
        break
      case 'project':
        ordered = grouped(rows, (row) => row.feature.project, desc)
        break
      case 'stale':
        ordered = grouped(rows, (row) => (row.feature.stale ? 1 : 0), desc)
        break
      case 'environment': {
        const environment = search.sortBy.environment
        const environments = this.environmentKeeper(search, ctx)
        const shown = (row: Row) => (environments(row.feature) ?? [...row.feature.environments.keys()]).includes(environment)
        // Booleans sort false before true; a flag without that environment comes last either way.
        ordered = grouped(rows, (row) => (shown(row) ? (row.feature.environments.get(environment)!.enabled ? 1 : 0) : null), desc)
        break
      }
      case 'lastSeenAt': {
        // Unleash ranks a flag by its best (flag, environment) row: the earliest sighting in an
        // environment ascending, the latest descending; never seen last. (Its SQL falls back to the
        // flag's own last_seen_at, which Unleash 8 no longer writes.)
        const environments = this.environmentKeeper(search, ctx)
        const keyOf = (row: Row): string | null => {
          const times = (environments(row.feature) ?? [...row.feature.environments.keys()])
            .map((env) => ctx.lastSeen(row.feature.name, env))
            .filter((time): time is string => time !== null)
            .sort()
          return times.length === 0 ? null : desc ? times[times.length - 1] : times[0]
        }
        const keys = new Map(rows.map((row) => [row, keyOf(row)]))
        ordered = [...rows].sort((a, b) => compareNullsLast(keys.get(a)!, keys.get(b)!, desc))
        break
      }
    }
    if (!search.favoritesFirst) return ordered
    const isFavorite = (row: Row) => isFavoriteOf(row.feature.favoritedBy, ctx.viewer)
    return [...ordered.filter(isFavorite), ...ordered.filter((row) => !isFavorite(row))]
  }
}

const compareNullsLast = <K extends string | number>(a: K | null, b: K | null, desc: boolean): number => {
  if (a === b) return 0
  if (a === null) return 1
  if (b === null) return -1
  return (a < b ? -1 : 1) * (desc ? -1 : 1)
}

// Stable grouping by a key (few distinct values): groups in key order, nulls last, each in arrival order.
const grouped = <K extends string | number>(rows: Row[], keyOf: (row: Row) => K | null, desc: boolean): Row[] => {
  const groups = new Map<K | null, Row[]>()
  for (const row of rows) {
    const key = keyOf(row)
    let group = groups.get(key)
    if (!group) groups.set(key, (group = []))
    group.push(row)
  }
  const ordered: Row[] = []
  for (const key of [...groups.keys()].sort((a, b) => compareNullsLast(a, b, desc))) for (const row of groups.get(key)!) ordered.push(row)
  return ordered
}

// Creation order reversed, flags created at the same moment still by name ascending.
const newestFirst = (rows: Row[]): Row[] => {
  const result: Row[] = []
  let end = rows.length
  while (end > 0) {
    let start = end - 1
    const at = rows[start].createdAtMs
    while (start > 0 && rows[start - 1].createdAtMs === at) start--
    for (let i = start; i < end; i++) result.push(rows[i])
    end = start
  }
  return result
}

// Users Unleash seeds and stamps on what admin tokens and the system do.
const seededUsers = new Map<number, string>([
  [-42, 'Unleash Admin Token User'],
  [-1337, 'Unleash System'],
])

const createdByView = (id: number | null | undefined, ctx: FeatureSearchContext) => {
  const user = id === null || id === undefined ? undefined : ctx.user(id)
  const name = user ? user.name || user.username || user.email || 'unknown' : ((id !== null && id !== undefined && seededUsers.get(id)) || 'unknown')
  return { id: id ?? 0, name, imageUrl: imageUrlOf({ id: id ?? null, email: user?.email, username: name }) }
}

const environmentOrder = (environments: ReadonlyMap<string, Environment>) => (a: string, b: string) =>
  (environments.get(a)?.sortOrder ?? 0) - (environments.get(b)?.sortOrder ?? 0) || a.localeCompare(b)

// One flag as Unleash 8.2's search lists it (featureSearchResponseSchema): its environments without
// strategies or variants, the names of the segments its strategies use, its creator, its current stage.
export const featureSearchView = (hit: FeatureSearchHit, dependencyType: 'parent' | 'child' | null, ctx: FeatureSearchContext) => {
  const { feature } = hit
  const names = (hit.environments ?? [...feature.environments.keys()]).sort(environmentOrder(ctx.environments))
  const segments = new Set<string>()
  for (const env of feature.environments.values()) {
    for (const strategy of env.strategies) {
      for (const id of strategy.segments) {
        const name = ctx.segmentName(id)
        if (name !== undefined) segments.add(name)
      }
    }
  }
  const stage = ctx.lifecycle(feature)
  return {
    type: feature.type,
    description: feature.description,
    project: feature.project,
    favorite: hit.isFavorite,
    name: feature.name,
    createdAt: feature.createdAt,
    stale: feature.stale,
    archivedAt: feature.archivedAt,
    impressionData: feature.impressionData,
    dependencyType,
    environments: names.map((name) => {
      const env = feature.environments.get(name)!
      return {
        name,
        enabled: env.enabled,
        type: ctx.environments.get(name)?.type ?? 'development',
        sortOrder: ctx.environments.get(name)?.sortOrder ?? 0,
        variantCount: env.variants.length,
        lastSeenAt: ctx.lastSeen(feature.name, name),
        hasStrategies: env.strategies.length > 0,
        hasEnabledStrategies: env.strategies.some((s) => !s.disabled),
        ...ctx.counts(feature.name, name),
        changeRequestIds: ctx.changeRequestIds(feature.name, name),
      }
    }),
    segments: [...segments].sort(),
    createdBy: createdByView(feature.createdByUserId, ctx),
    lifecycle: { stage: stage.stage, ...(stage.status !== undefined && { status: stage.status }), enteredStageAt: stage.enteredStageAt },
    // Unleash lists a tag's type colour; tag types keep none here.
    ...(hit.tags.length > 0 && { tags: hit.tags.map((tag) => ({ value: tag.value, type: tag.type, color: null })) }),
  }
}

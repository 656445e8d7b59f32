// The project page's search and filters over its flags table.
export interface FlagRow {
  name: string
  type: string
  stale: boolean
  description?: string | null
  tags?: { type: string; value: string }[]
  environments: { name: string; enabled: boolean }[]
}

export interface FlagFilter {
  search: string
  tag: string // "type:value" or ''
  type: string // '' for any
  state: '' | 'stale' | 'active' | 'enabled' | 'disabled'
}

export const emptyFilter: FlagFilter = { search: '', tag: '', type: '', state: '' }

export const tagLabel = (tag: { type: string; value: string }) => `${tag.type}:${tag.value}`

export const matchesFilter = (flag: FlagRow, filter: FlagFilter): boolean => {
  const needle = filter.search.trim().toLowerCase()
  if (needle && !flag.name.toLowerCase().includes(needle) && !(flag.description ?? '').toLowerCase().includes(needle)) return false
  if (filter.type && flag.type !== filter.type) return false
  if (filter.tag && !(flag.tags ?? []).some((t) => tagLabel(t) === filter.tag)) return false
  const enabledSomewhere = flag.environments.some((e) => e.enabled)
  if (filter.state === 'stale' && !flag.stale) return false
  if (filter.state === 'active' && flag.stale) return false
  if (filter.state === 'enabled' && !enabledSomewhere) return false
  if (filter.state === 'disabled' && enabledSomewhere) return false
  return true
}

// Moves one item to another index (drag to reorder); the others keep their order.
export const moveItem = <T>(items: readonly T[], from: number, to: number): T[] => {
  const out = [...items]
  if (from < 0 || from >= out.length || to < 0 || to >= out.length) return out
  const [item] = out.splice(from, 1)
  out.splice(to, 0, item as T)
  return out
}

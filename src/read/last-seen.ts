import type { Database } from 'lmdb'

// Metrics are not events: they are folded in memory and written to a side table on a timer.
export class LastSeen {
  private readonly seen = new Map<string, string>()
  private readonly dirty = new Set<string>()

  constructor(private readonly table: Database<string, string>) {
    for (const { key, value } of table.getRange()) this.seen.set(key, value)
  }

  private static key(feature: string, environment: string) {
    return `${feature}\u0000${environment}`
  }

  record(feature: string, environment: string, at: string): void {
    const key = LastSeen.key(feature, environment)
    const current = this.seen.get(key)
    if (current !== undefined && current >= at) return
    this.seen.set(key, at)
    this.dirty.add(key)
  }

  of(feature: string, environment: string): string | null {
    return this.seen.get(LastSeen.key(feature, environment)) ?? null
  }

  latest(feature: string, environments: Iterable<string>): string | null {
    let latest: string | null = null
    for (const env of environments) {
      const at = this.of(feature, env)
      if (at !== null && (latest === null || at > latest)) latest = at
    }
    return latest
  }

  async flush(): Promise<void> {
    if (this.dirty.size === 0) return
    const keys = [...this.dirty]
    this.dirty.clear()
    await this.table.transaction(() => {
      for (const key of keys) this.table.put(key, this.seen.get(key)!)
    })
  }
}

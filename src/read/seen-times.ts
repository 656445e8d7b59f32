// The side table (EventLog.side) that keeps a map of texts between starts: read whole at a start,
// written a few keys a transaction.
export interface TextTable {
  getRange(): Iterable<{ key: string; value: string }>
  put(key: string, value: string): unknown
  transaction(action: () => void): Promise<unknown>
}

// When something was last seen (an ISO time per key): kept in memory, written to a side table on a timer.
// Not events: a poll or a metric changes nothing anyone decides on.
export class SeenTimes {
  private readonly seen = new Map<string, string>()
  private readonly dirty = new Set<string>()

  constructor(private readonly table: TextTable) {
    for (const { key, value } of table.getRange()) this.seen.set(key, value)
  }

  record(key: string, at: string): void {
    const current = this.seen.get(key)
    if (current !== undefined && current >= at) return
    this.seen.set(key, at)
    this.dirty.add(key)
  }

  of(key: string): string | null {
    return this.seen.get(key) ?? null
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

// The key of a flag's last-seen time in one environment (from SDK metrics).
export const flagSeenKey = (feature: string, environment: string): string => `${feature}\u0000${environment}`

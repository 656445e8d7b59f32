import type { Method, Route } from './types.js'

// Latency buckets in seconds: SDK polls answer in well under a millisecond, writes wait for a commit.
export const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

export interface LatencySlot {
  // Per bucket, not cumulative; the last slot counts what is above every bound.
  counts: Float64Array
  count: number
  sumSeconds: number
}

export interface LatencyRow extends LatencySlot {
  method: Method | 'OTHER'
  route: string
  status: number
}

// The label for requests that matched no route: one series however many paths are tried.
export const unmatchedRoute = '(unmatched)'

// One route's slots by status; the last status recorded is kept beside them, since a route answers mostly
// one (an SDK poll: 304), and comparing it is cheaper than a Map lookup.
export class RouteSlots {
  readonly byStatus = new Map<number, LatencySlot>()
  lastStatus = -1
  last: LatencySlot | undefined = undefined
}

// Counts per route pattern and status, kept in plain numbers on the request path; prom-client only
// reads them when scraped. A label set costs one Map lookup per request, not a label hash.
export class RequestMetrics {
  private readonly byRoute = new Map<Route | undefined, RouteSlots>()
  private readonly routeOf = new Map<RouteSlots, { method: Method | 'OTHER'; route: string }>()

  slotsFor(route: Route | undefined): RouteSlots {
    let slots = this.byRoute.get(route)
    if (!slots) {
      slots = new RouteSlots()
      this.byRoute.set(route, slots)
      this.routeOf.set(slots, route ? { method: route.method, route: route.path } : { method: 'OTHER', route: unmatchedRoute })
    }
    return slots
  }

  record(slots: RouteSlots, status: number, seconds: number): void {
    let slot = slots.lastStatus === status ? slots.last : slots.byStatus.get(status)
    if (!slot) slots.byStatus.set(status, (slot = { counts: new Float64Array(latencyBuckets.length + 1), count: 0, sumSeconds: 0 }))
    slots.lastStatus = status
    slots.last = slot
    let bucket = 0
    while (bucket < latencyBuckets.length && seconds > latencyBuckets[bucket]) bucket++
    slot.counts[bucket]++
    slot.count++
    slot.sumSeconds += seconds
  }

  rows(): LatencyRow[] {
    const rows: LatencyRow[] = []
    for (const [slots, label] of this.routeOf) {
      for (const [status, slot] of slots.byStatus) rows.push({ ...label, status, ...slot })
    }
    return rows
  }
}

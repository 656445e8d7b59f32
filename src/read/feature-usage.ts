// How often SDKs evaluated each flag, per hour, environment and application: what the flag page's
// metrics show. Kept in memory for the last 48 hours (Unleash's `hoursBack` limit), like last-seen
// times not written as events; a restart starts the counts afresh.

const hourMs = 60 * 60 * 1000
export const usageHoursKept = 48
// A bound on the buckets held, whatever the number of flags and applications reporting.
const maxBuckets = 200_000

export interface UsageBucket {
  featureName: string
  appName: string
  environment: string
  // The start of the hour, ISO 8601.
  timestamp: string
  yes: number
  no: number
  variants: Record<string, number>
}

// An hour without reports has no variants.
export type HourlyUsage = Omit<UsageBucket, 'variants'> & { variants?: Record<string, number> }

export interface UsageReport {
  featureName: string
  appName: string
  environment: string
  yes: number
  no: number
  variants?: Record<string, number>
}

const hourOf = (at: Date) => Math.floor(at.getTime() / hourMs) * hourMs

export class FeatureUsage {
  // By flag, then by `${hour}\u0000${environment}\u0000${appName}`; each flag's buckets in arrival order.
  private readonly byFeature = new Map<string, Map<string, UsageBucket>>()
  private size = 0
  private prunedAt = 0

  constructor(private readonly clock: () => Date) {}

  record(report: UsageReport): void {
    const now = this.clock()
    const hour = hourOf(now)
    if (hour !== this.prunedAt) this.prune(hour)
    let buckets = this.byFeature.get(report.featureName)
    if (!buckets) this.byFeature.set(report.featureName, (buckets = new Map()))
    const key = `${hour}\u0000${report.environment}\u0000${report.appName}`
    let bucket = buckets.get(key)
    if (!bucket) {
      if (this.size >= maxBuckets) return
      bucket = { featureName: report.featureName, appName: report.appName, environment: report.environment, timestamp: new Date(hour).toISOString(), yes: 0, no: 0, variants: {} }
      buckets.set(key, bucket)
      this.size++
    }
    bucket.yes += report.yes
    bucket.no += report.no
    for (const [variant, count] of Object.entries(report.variants ?? {})) bucket.variants[variant] = (bucket.variants[variant] ?? 0) + count
  }

  // The flag's buckets of the last `hours` hours (the current one included), oldest first.
  recent(featureName: string, hours: number): UsageBucket[] {
    const since = hourOf(this.clock()) - (hours - 1) * hourMs
    const buckets = [...(this.byFeature.get(featureName)?.values() ?? [])].filter((b) => Date.parse(b.timestamp) >= since)
    return buckets.sort((a, b) => a.timestamp.localeCompare(b.timestamp))
  }

  // Every hour of the last `hours` for each environment and application that reported the flag in
  // them, with zero counts where nothing came: a chart's series without gaps (Unleash does the same).
  hourly(featureName: string, hours: number): HourlyUsage[] {
    const reported = this.recent(featureName, hours)
    const environments = [...new Set(reported.map((b) => b.environment))]
    const applications = [...new Set(reported.map((b) => b.appName))]
    const first = hourOf(this.clock()) - (hours - 1) * hourMs
    const found = new Map(reported.map((b) => [`${b.timestamp}\u0000${b.environment}\u0000${b.appName}`, b]))
    const series: HourlyUsage[] = []
    for (let n = 0; n < hours; n++) {
      const timestamp = new Date(first + n * hourMs).toISOString()
      for (const environment of environments) {
        for (const appName of applications) {
          series.push(found.get(`${timestamp}\u0000${environment}\u0000${appName}`) ?? { featureName, appName, environment, timestamp, yes: 0, no: 0 })
        }
      }
    }
    return series
  }

  // The flag's yes and no in one environment, all applications together, from the hourly rows that
  // started in the last hour: what Unleash's flag search shows per environment.
  lastHour(featureName: string, environment: string): { yes: number; no: number } {
    const since = this.clock().getTime() - hourMs
    let yes = 0
    let no = 0
    for (const bucket of this.byFeature.get(featureName)?.values() ?? []) {
      if (bucket.environment !== environment || Date.parse(bucket.timestamp) < since) continue
      yes += bucket.yes
      no += bucket.no
    }
    return { yes, no }
  }

  // Applications that reported the flag in the hours kept, by name.
  applications(featureName: string): string[] {
    return [...new Set([...(this.byFeature.get(featureName)?.values() ?? [])].map((b) => b.appName))].sort()
  }

  private prune(hour: number): void {
    this.prunedAt = hour
    const oldest = hour - (usageHoursKept - 1) * hourMs
    for (const [name, buckets] of this.byFeature) {
      for (const [key, bucket] of buckets) {
        if (Date.parse(bucket.timestamp) >= oldest) continue
        buckets.delete(key)
        this.size--
      }
      if (buckets.size === 0) this.byFeature.delete(name)
    }
  }
}

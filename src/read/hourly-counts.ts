// How often each flag was evaluated, yes and no, per environment in the current hour: the `yes` and `no`
// of the flag search's environments. Unleash stores SDK counts in hourly rows and sums the rows of the
// last hour, which is the current hour's row; only that row is kept here, in memory (like the counts
// Unleash has not flushed yet, they are gone after a restart).
const hourMs = 3_600_000

interface HourCounts {
  hour: number
  yes: number
  no: number
}

export class HourlyCounts {
  private readonly counts = new Map<string, HourCounts>()

  record(feature: string, environment: string, at: number, yes: number, no: number): void {
    const key = `${feature}\u0000${environment}`
    const hour = Math.floor(at / hourMs) * hourMs
    const current = this.counts.get(key)
    if (current && current.hour > hour) return
    if (current && current.hour === hour) {
      current.yes += yes
      current.no += no
    } else this.counts.set(key, { hour, yes, no })
  }

  of(feature: string, environment: string, now: number): { yes: number; no: number } {
    const current = this.counts.get(`${feature}\u0000${environment}`)
    return current && current.hour >= now - hourMs ? { yes: current.yes, no: current.no } : { yes: 0, no: 0 }
  }
}

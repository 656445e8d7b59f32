// Failed logins counted per key (an account, an address) over a sliding minute: past the limit every
// attempt, the right password included, is refused until the oldest failure leaves the window.
const windowMs = 60_000
const maxKeys = 100_000

export class LoginThrottle {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly maxFailuresPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  // Seconds until an attempt for this key is allowed again; 0 when it is allowed now.
  retryAfterSeconds(key: string): number {
    const now = this.now()
    const recent = this.recent(key, now)
    if (recent.length < this.maxFailuresPerMinute) return 0
    return Math.ceil((recent[recent.length - this.maxFailuresPerMinute] + windowMs - now) / 1000)
  }

  failed(key: string): void {
    const now = this.now()
    if (!this.failures.has(key) && this.failures.size >= maxKeys) this.failures.delete(this.failures.keys().next().value!)
    this.failures.set(key, [...this.recent(key, now), now])
  }

  private recent(key: string, now: number): number[] {
    const times = (this.failures.get(key) ?? []).filter((at) => at > now - windowMs)
    if (times.length === 0) this.failures.delete(key)
    else this.failures.set(key, times)
    return times
  }
}

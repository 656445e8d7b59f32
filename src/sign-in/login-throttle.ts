const windowMs = 60_000
const maxKeys = 100_000

// Failures counted per key over a sliding minute.
export class FailureWindow {
  private readonly failures = new Map<string, number[]>()

  constructor(
    private readonly limit: number,
    private readonly now: () => number,
  ) {}

  // Seconds until the key is under its limit again; 0 when it is now.
  retryAfterSeconds(key: string): number {
    const now = this.now()
    const recent = this.recent(key, now)
    if (recent.length < this.limit) return 0
    return Math.ceil((recent[recent.length - this.limit] + windowMs - now) / 1000)
  }

  failed(key: string): void {
    const now = this.now()
    if (!this.failures.has(key) && this.failures.size >= maxKeys) this.failures.delete(this.failures.keys().next().value!)
    this.failures.set(key, [...this.recent(key, now), now])
  }

  // Takes back the newest failure.
  forgiveOne(key: string): void {
    const times = this.failures.get(key)
    if (times === undefined) return
    times.pop()
    if (times.length === 0) this.failures.delete(key)
  }

  forgive(key: string): void {
    this.failures.delete(key)
  }

  private recent(key: string, now: number): number[] {
    const times = (this.failures.get(key) ?? []).filter((at) => at > now - windowMs)
    if (times.length === 0) this.failures.delete(key)
    else this.failures.set(key, times)
    return times
  }
}

export interface LoginLimits {
  // Failures per minute for one account tried from one address.
  perAccount: number
  // Failures per minute from one address, whatever the accounts.
  perAddress: number
}

// Sign-in throttling that slows guessing without locking owners out. An account's failures are
// counted per client address: someone guessing from one address throttles that account there only,
// and its owner elsewhere still signs in. One address guessing at many accounts (a spray) meets the
// per-address limit. While either limit is reached every attempt is refused, the right password
// included: letting it through would tell a guesser which one is right.
export class LoginThrottle {
  private readonly perPair: FailureWindow
  private readonly perAddress: FailureWindow

  constructor(limits: LoginLimits, now: () => number = Date.now) {
    this.perPair = new FailureWindow(limits.perAccount, now)
    this.perAddress = new FailureWindow(limits.perAddress, now)
  }

  // Seconds to wait before this account may be tried from this address; or 0, and the attempt is
  // counted as a failure until succeeded() takes it back, so that guesses sent side by side while
  // their passwords are checked cannot all pass under the limit.
  attempt(account: string, address: string): number {
    const pair = pairKey(account, address)
    const wait = Math.max(this.perPair.retryAfterSeconds(pair), this.perAddress.retryAfterSeconds(address))
    if (wait > 0) return wait
    this.perPair.failed(pair)
    this.perAddress.failed(address)
    return 0
  }

  // The password was right: this account starts afresh at this address, and the address's count
  // loses the attempt.
  succeeded(account: string, address: string): void {
    this.perPair.forgive(pairKey(account, address))
    this.perAddress.forgiveOne(address)
  }
}

const pairKey = (account: string, address: string) => `${account}\u0000${address}`

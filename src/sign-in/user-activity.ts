interface Activity {
  loginAttempts: number
  seenAt: string | null
  // The admin UI's one-time hints (Unleash's "splash" screens) the user has seen.
  splash?: string[]
}

// The side table (EventLog.side) the activity lives in.
interface ActivityTable {
  get(key: string): Activity | undefined
  put(key: string, value: Activity): Promise<unknown>
}

// Failed-login counts, last logins and seen UI hints change too often, or matter too little, to be
// events; they live in a side table.
export class UserActivity {
  constructor(private readonly table: ActivityTable) {}

  of(userId: number): Activity {
    return this.table.get(String(userId)) ?? { loginAttempts: 0, seenAt: null }
  }

  async failedLogin(userId: number): Promise<void> {
    const current = this.of(userId)
    await this.table.put(String(userId), { ...current, loginAttempts: current.loginAttempts + 1 })
  }

  async loggedIn(userId: number, at: string): Promise<void> {
    await this.table.put(String(userId), { ...this.of(userId), loginAttempts: 0, seenAt: at })
  }

  async splashSeen(userId: number, splashId: string): Promise<void> {
    const current = this.of(userId)
    if (current.splash?.includes(splashId)) return
    await this.table.put(String(userId), { ...current, splash: [...(current.splash ?? []), splashId] })
  }
}

import type { Database } from 'lmdb'

interface Activity {
  loginAttempts: number
  seenAt: string | null
}

// Failed-login counts and last logins change too often to be events; they live in a side table.
export class UserActivity {
  constructor(private readonly table: Database<Activity, string>) {}

  of(userId: number): Activity {
    return this.table.get(String(userId)) ?? { loginAttempts: 0, seenAt: null }
  }

  async failedLogin(userId: number): Promise<void> {
    const current = this.of(userId)
    await this.table.put(String(userId), { ...current, loginAttempts: current.loginAttempts + 1 })
  }

  async loggedIn(userId: number, at: string): Promise<void> {
    await this.table.put(String(userId), { loginAttempts: 0, seenAt: at })
  }
}

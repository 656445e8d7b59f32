import { createHash, randomBytes } from 'node:crypto'

interface StoredSession {
  userId: number
  expiresAt: number
}

// The side table (EventLog.side) the sessions live in.
interface SessionTable {
  get(key: string): StoredSession | undefined
  put(key: string, value: StoredSession): Promise<unknown>
  remove(key: string): Promise<unknown>
  getRange(): Iterable<{ key: string; value: StoredSession }>
  transaction(action: () => void): Promise<unknown>
}

const sessionLifetimeMs = 2 * 24 * 3600 * 1000
const hashOf = (sessionId: string) => createHash('sha256').update(sessionId).digest('hex')

// Logins are not events: sessions live in a side table (by hash, so the table never holds a usable id)
// and survive restarts.
export class Sessions {
  constructor(private readonly table: SessionTable) {}

  async create(userId: number, now = Date.now()): Promise<string> {
    const sessionId = randomBytes(32).toString('base64url')
    await this.table.put(hashOf(sessionId), { userId, expiresAt: now + sessionLifetimeMs })
    return sessionId
  }

  userOf(sessionId: string, now = Date.now()): number | undefined {
    if (sessionId.length > 200) return undefined
    const session = this.table.get(hashOf(sessionId))
    if (!session || session.expiresAt <= now) return undefined
    return session.userId
  }

  async destroy(sessionId: string): Promise<void> {
    await this.table.remove(hashOf(sessionId))
  }

  async destroyAllOf(userId: number): Promise<void> {
    const doomed = Array.from(this.table.getRange(), ({ key, value }) => (value.userId === userId ? key : undefined)).filter(
      (key): key is string => key !== undefined,
    )
    await this.table.transaction(() => {
      for (const key of doomed) this.table.remove(key)
    })
  }
}

export const hashPatSecret = (secret: string) => createHash('sha256').update(secret).digest('hex')

import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Test } from 'tap'
import { loadConfig } from '../../src/config.js'
import { startServer, type RunningServer } from '../../src/server.js'
import type { ServerRef } from './admin-api.js'
import { randomAdminToken } from './server.js'

export interface FakeClock {
  now(): Date
  set(iso: string): void
  advanceDays(days: number): void
}

export const fakeClock = (startIso: string): FakeClock => {
  let nowMs = Date.parse(startIso)
  return {
    now: () => new Date(nowMs),
    set: (iso) => {
      nowMs = Date.parse(iso)
    },
    advanceDays: (days) => {
      nowMs += days * 24 * 60 * 60 * 1000
    },
  }
}

export interface ClockedServer extends ServerRef {
  clock: FakeClock
  dataDir: string
  running: RunningServer
  // Clean stop (snapshots written); teardown stops whatever still runs.
  stop(): Promise<void>
  // Stops this server and starts another on the same data and clock.
  restart(): Promise<ClockedServer>
}

// The real server in-process, stamping commands with a clock the test moves (ServerOptions.clock).
// The data dir (temporary unless given) is removed at teardown, after the last server on it stopped.
export const startClockedServer = async (
  t: Test,
  options: { clock?: FakeClock; env?: Record<string, string>; dataDir?: string; adminToken?: string } = {},
): Promise<ClockedServer> => {
  const clock = options.clock ?? fakeClock(new Date().toISOString())
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), 'unleash-clocked-'))
  const adminToken = options.adminToken ?? randomAdminToken()
  const env = { HTTP_PORT: '0', HTTP_HOST: '127.0.0.1', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: adminToken, ...options.env }
  let latest: ClockedServer | undefined

  const launch = async (): Promise<ClockedServer> => {
    const running = await startServer(loadConfig(env), { clock: () => clock.now() })
    let stopped: Promise<void> | undefined
    const stop = () => (stopped ??= running.close())
    latest = {
      baseUrl: `http://127.0.0.1:${running.port}`,
      adminToken,
      clock,
      dataDir,
      running,
      stop,
      restart: async () => {
        await stop()
        return launch()
      },
    }
    return latest
  }

  t.teardown(async () => {
    await latest?.stop()
    if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true })
  })
  return launch()
}

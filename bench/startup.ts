// Start-up time of a data directory holding BENCH_EVENTS (1,000,000) events: how long from `node
// dist/src/main.js` to "listening", with the snapshot set far behind the log (everything after it is
// replayed), right at its end, and BENCH_TAIL (4,999: one short of SNAPSHOT_EVERY) events behind it.
// Run: node scripts/build.mjs && node dist/bench/startup.js
//
// The data directory is built the way a server builds it: BENCH_FLAGS realistic flags created through
// the admin API, then one flag switched off and on again; those two records the server wrote are
// copied (new ids, later timestamps) until the log holds BENCH_EVENTS events, appended with the
// store's own EventLog in large transactions. Every copy is a valid event that replays like any other.
import { randomBytes } from 'node:crypto'
import { rmSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { EventRecord } from '../src/domain/events.js'
import { EventLog } from '../src/store/log.js'
import { AdminApi } from './lib/admin-api.js'
import { startChildServer, tempDir } from './lib/child-server.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo } from './lib/machine-info.js'
import { realisticFeatures, seedFeatures } from './lib/realistic-features.js'
import { positiveInteger } from './lib/settings.js'

const EVENTS = positiveInteger('BENCH_EVENTS', 1_000_000)
const FLAGS = positiveInteger('BENCH_FLAGS', 1000)
const TAIL = positiveInteger('BENCH_TAIL', 4999)
const BATCH = 20_000

const main = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src', 'main.js')
const adminToken = `*:*.${randomBytes(16).toString('hex')}`

const start = async (dataDir: string) => {
  const began = performance.now()
  const server = await startChildServer({
    name: 'flag server',
    script: main,
    readyTimeoutMs: 600_000,
    env: { HTTP_HOST: '127.0.0.1', HTTP_PORT: '0', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: adminToken },
  })
  const ms = performance.now() - began
  const replayed = Number(/(\d+) events replayed/.exec(server.output())?.[1] ?? NaN)
  return { server, ms, replayed }
}

// Copies `records` round-robin until the log ends at `until`, each copy a second after the last.
const appendCopies = async (dataDir: string, records: EventRecord[], until: number) => {
  const log = EventLog.open(dataDir)
  let at = Date.parse(records[records.length - 1].createdAt)
  let i = 0
  while (log.lastId < until) {
    const drafts: Omit<EventRecord, 'id'>[] = []
    for (let n = Math.min(BATCH, until - log.lastId); n > 0; n--) {
      const { id: _id, ...draft } = records[i++ % records.length]
      drafts.push({ ...draft, createdAt: new Date((at += 1000)).toISOString() })
    }
    await log.append<EventRecord>(drafts).committed
  }
  const count = log.count()
  await log.close()
  return count
}

const run = async () => {
  console.log(`start-up with ${thousands(EVENTS)} events in the log`)
  console.log(describeMachine(machineInfo()))
  const root = tempDir('startup-bench-')
  const dataDir = path.join(root, 'data')
  try {
    // 1. A real history: flags through the admin API, then one flag off and on.
    let { server } = await start(dataDir)
    const api = new AdminApi(server.url, adminToken)
    const features = realisticFeatures(FLAGS)
    await seedFeatures(api, features)
    const toggled = features[0].name
    await api.request('POST', `/api/admin/projects/default/features/${toggled}/environments/development/off`)
    await api.enable('default', toggled, 'development')
    await server.stop()
    const log = EventLog.open(dataDir)
    const seeded = log.lastId
    const toggles = log.newest(2).reverse() as EventRecord[]
    await log.close()
    if (toggles.map((r) => r.type).join() !== 'feature-environment-disabled,feature-environment-enabled') {
      throw new Error(`unexpected last records: ${toggles.map((r) => r.type).join()}`)
    }
    console.log(`seeded ${thousands(seeded)} events (${FLAGS} flags); the snapshot set is at event ${thousands(seeded)}`)

    // 2. Grow the log to EVENTS behind the snapshot.
    const grew = performance.now()
    const total = await appendCopies(dataDir, toggles, EVENTS)
    console.log(`appended to ${thousands(total)} events in ${fixed((performance.now() - grew) / 1000, 1)} s`)

    const rows: string[][] = []
    const measure = async (label: string) => {
      const started = await start(dataDir)
      rows.push([label, thousands(total), thousands(started.replayed), fixed(started.ms / 1000, 2)])
      console.log(`  ${label}: ${fixed(started.ms / 1000, 2)} s, ${thousands(started.replayed)} replayed`)
      // Stopping writes a snapshot set at the end of the log.
      await started.server.stop()
    }
    await measure(`snapshot ${thousands(total - seeded)} events behind (full replay)`)
    await measure('snapshot at the end of the log')
    await measure('snapshot at the end of the log, again')
    const withTail = await appendCopies(dataDir, toggles, total + TAIL)
    const started = await start(dataDir)
    rows.push([`snapshot ${thousands(TAIL)} events behind`, thousands(withTail), thousands(started.replayed), fixed(started.ms / 1000, 2)])
    await started.server.stop()

    console.log('')
    console.log(formatTable(['data directory', 'events in the log', 'events replayed', 'start to listening, s'], rows))
    console.log('Start to listening includes starting Node and loading the modules (about 0.3 s on its own).')
  } finally {
    rmSync(root, { recursive: true, force: true })
  }
}

await run()

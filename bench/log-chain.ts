// What the hash chain costs on writes: appends of one realistic event each (as one command makes),
// committed in order, against the chain link alone computed over the same records in the same run.
// Run: node scripts/build.mjs && node dist/bench/log-chain.js   (BENCH_RECORDS, default 20000)
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chainLink, EventLog } from '../src/store/log.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo } from './lib/machine-info.js'

const RECORDS = Number(process.env.BENCH_RECORDS ?? 20000)

// A strategy-add event about the size the admin API writes (constraints, parameters, variants).
const draftFor = (i: number) => ({
  type: 'feature-strategy-add',
  createdAt: new Date(1_700_000_000_000 + i).toISOString(),
  createdBy: 'admin',
  createdByUserId: -42,
  project: 'default',
  environment: 'development',
  featureName: `feature-${i % 500}`,
  data: {
    id: `0b8e1a9c-${i.toString(16).padStart(4, '0')}-4c6f-9a7e-5d2f8b1c3e4a`,
    name: 'flexibleRollout',
    title: null,
    disabled: false,
    sortOrder: 0,
    segments: [],
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2', '3', `${i}`], inverted: false, caseInsensitive: false }],
    parameters: { rollout: '50', stickiness: 'default', groupId: `feature-${i % 500}` },
    variants: [{ name: 'a', weight: 500, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'x' } }],
  },
  preData: null,
  tags: [],
})

const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-log-chain-'))
try {
  const log = EventLog.open(dir)
  const drafts = Array.from({ length: RECORDS }, (_, i) => draftFor(i))
  const startAppend = performance.now()
  const commits = drafts.map((draft) => log.append([draft]).committed)
  await Promise.all(commits)
  const appendMs = performance.now() - startAppend
  const records = Array.from(log.from(1))
  await log.close()

  let previous: Buffer = Buffer.alloc(32)
  const startHash = performance.now()
  for (const record of records) previous = chainLink(previous, record)
  const hashMs = performance.now() - startHash

  const perRecordAppend = (appendMs * 1000) / RECORDS
  const perRecordHash = (hashMs * 1000) / RECORDS
  console.log(describeMachine(machineInfo()))
  console.log(formatTable(
    ['measure', 'records/s', 'µs per record'],
    [
      ['append + commit (chain included)', thousands((RECORDS * 1000) / appendMs), fixed(perRecordAppend, 2)],
      ['chain link alone (canonical JSON + sha256)', thousands((RECORDS * 1000) / hashMs), fixed(perRecordHash, 2)],
    ],
  ))
  console.log(`the chain is ${fixed((100 * perRecordHash) / perRecordAppend, 1)}% of a write's cost`)
} finally {
  rmSync(dir, { recursive: true, force: true })
}

import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { loadConfig } from './config.js'
import { EventLog } from './store/log.js'

// `npm run log -- verify|backup ...`: works on a data directory whether or not a server is running on it.
const usage = 'usage: npm run log -- verify [--data-dir DIR] | backup TARGET_DIR [--data-dir DIR]'

const fail = (message: string, code = 1): never => {
  console.error(message)
  process.exit(code)
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { 'data-dir': { type: 'string' } },
})
const [command, target] = positionals
const dataDir = path.resolve(values['data-dir'] ?? loadConfig().dataDir)
if (!existsSync(path.join(dataDir, 'data.mdb'))) fail(`no data in ${dataDir} (give --data-dir or DATA_DIR)`, 2)

const withLog = async (use: (log: EventLog) => Promise<number> | number): Promise<number> => {
  const log = EventLog.open(dataDir, { readOnly: true })
  try {
    return await use(log)
  } finally {
    await log.close()
  }
}

const verify = (log: EventLog): number => {
  const check = log.verifyChain()
  if (!check.ok) {
    console.log(`broken at record ${check.id}: ${check.problem}`)
    return 1
  }
  console.log(`ok: ${check.id} records, head ${check.id} ${check.hash}`)
  return 0
}

const backup = async (log: EventLog): Promise<number> => {
  if (!target) return fail(usage, 2)
  const into = path.resolve(target)
  if (existsSync(into) && readdirSync(into).length > 0) return fail(`${into} is not empty; back up into a new directory`, 2)
  await log.backup(into)
  const copy = EventLog.open(into, { readOnly: true })
  const lastId = copy.lastId
  await copy.close()
  console.log(`backed up ${dataDir} into ${into} (records 1 to ${lastId}); restore by starting with DATA_DIR=${into}`)
  return 0
}

const code =
  command === 'verify' ? await withLog(verify)
  : command === 'backup' ? await withLog(backup)
  : fail(usage, 2)
process.exit(code)

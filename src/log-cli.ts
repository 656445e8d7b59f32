import { existsSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { fail, parseCliArgs } from './cli-args.js'
import { loadConfig } from './config.js'
import { EventLog } from './store/log.js'

// `npm run log -- verify|backup ...`: works on a data directory whether or not a server is running on it.
const usage = `usage: npm run log -- COMMAND [OPTIONS]

Works on a data directory whether or not a server is running on it.

commands:
  verify                 checks the log's hash chain from the first record to the last; prints
                         "ok: N records, head N HASH" and exits 0, or names the first broken record
                         and exits 1
  backup TARGET_DIR      copies the data directory, consistently, into TARGET_DIR (new or empty);
                         start a server with DATA_DIR=TARGET_DIR to restore it
  help                   prints this text

options:
  --data-dir DIR         the data directory (default: DATA_DIR, or ./data)
  -h, --help             prints this text

exit codes: 0 done, 1 the chain is broken, 2 a usage or data directory problem`

const parsed = parseCliArgs(
  {
    allowPositionals: true,
    options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  },
  usage,
)
const { positionals, values } = parsed
const [command, target] = positionals
if (command === 'help') {
  console.log(usage)
  process.exit(0)
}
if (command !== 'verify' && command !== 'backup') fail(command === undefined ? usage : `unknown command "${command}"\n\n${usage}`, 2)
if (command === 'backup' && !target) fail(`backup needs a TARGET_DIR\n\n${usage}`, 2)
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
  const into = path.resolve(target)
  if (existsSync(into) && readdirSync(into).length > 0) return fail(`${into} is not empty; back up into a new directory`, 2)
  await log.backup(into)
  const copy = EventLog.open(into, { readOnly: true })
  const lastId = copy.lastId
  await copy.close()
  console.log(`backed up ${dataDir} into ${into} (records 1 to ${lastId}); restore by starting with DATA_DIR=${into}`)
  return 0
}

process.exit(await withLog(command === 'verify' ? verify : backup))

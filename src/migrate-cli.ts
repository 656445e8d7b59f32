import path from 'node:path'
import { fail, parseCliArgs } from './cli-args.js'
import { readUnleash } from './migrate/unleash-source.js'
import { kinds } from './migrate/plan.js'
import { checkEmpty, writeMigration, type MigrationReport } from './migrate/write.js'

// `npm run migrate -- --from URL --token T --data-dir DIR`: copies a running Unleash into a new data directory.
const usage = `usage: npm run migrate -- --from URL --token TOKEN --data-dir DIR

Reads a running Unleash through its admin API (nothing else) and writes what it holds into a new or
empty data directory, as ordinary events; then start this server with DATA_DIR=DIR. SDKs, proxies
and Edge keep their API tokens.

options:
  --from URL             the Unleash, e.g. https://unleash.example.com
  --token TOKEN          an admin API token of it (e.g. '*:*.secret'); it must be able to read API tokens
  --data-dir DIR         the data directory to create (new or empty)
  -h, --help             prints this text

exit codes: 0 copied (the report says what was not), 1 the source or the copy failed, 2 a usage or
data directory problem`

const parsed = parseCliArgs(
  {
    options: { from: { type: 'string' }, token: { type: 'string' }, 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
  },
  usage,
)
const { values } = parsed
if (!values.from || !values.token || !values['data-dir']) fail(`--from, --token and --data-dir are all needed\n\n${usage}`, 2)
const dataDir = path.resolve(values['data-dir']!)
const notEmpty = checkEmpty(dataDir)
if (notEmpty) fail(notEmpty, 2)

const started = performance.now()
const seconds = () => ((performance.now() - started) / 1000).toFixed(1)
const say = (line: string) => console.log(`[${seconds()} s] ${line}`)

const describe = (report: MigrationReport): string => {
  const lines = [`migrated ${report.from}${report.version ? ` (Unleash ${report.version})` : ''} into ${dataDir} in ${seconds()} s: ${report.records} records`]
  for (const kind of kinds) lines.push(`  ${kind.padEnd(24)}${report.counts[kind]}`)
  if (report.notCopied.length === 0) lines.push('everything read was copied')
  else {
    lines.push(`not copied (${report.notCopied.length}):`)
    for (const item of report.notCopied) lines.push(`  ${item.kind}: ${item.label}: ${item.why}`)
  }
  lines.push("not copied by design: favorites (per user; an API token has none), passwords (Unleash does not show them), metrics and last-seen times, project environments' default strategies (no read for them in Unleash 8.2's admin API)")
  if (report.passwords.length > 0) {
    lines.push('users: Unleash does not show passwords, so each copied user has a new one, shown only here; hand them over and have them change it:')
    for (const { user, password } of report.passwords) lines.push(`  ${user}: ${password}`)
  }
  lines.push(`start it: DATA_DIR=${dataDir} npm start`)
  return lines.join('\n')
}

try {
  const source = await readUnleash({ url: values.from!, token: values.token!, progress: say })
  say(`read everything; writing into ${dataDir}`)
  const report = await writeMigration(source, dataDir, say)
  console.log(describe(report))
} catch (error) {
  fail(`migration failed after ${seconds()} s: ${error instanceof Error ? error.message : String(error)}`)
}

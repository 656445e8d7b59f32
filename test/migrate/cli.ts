import { execFile } from 'node:child_process'
import path from 'node:path'
import type { CliResult } from '../helpers/log-cli.js'
import { builtMain } from '../helpers/server.js'

const builtMigrateCli = path.join(path.dirname(builtMain), 'migrate-cli.js')

// `npm run migrate -- <args>` without the build step (the tests run on a built dist/).
export const runMigrateCli = (args: string[]): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile(process.execPath, [builtMigrateCli, ...args], { timeout: 600_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
      resolve({ code, stdout, stderr })
    })
  })

// The report's counts: "  flags                 40" lines.
export const reportedCounts = (stdout: string): Record<string, number> =>
  Object.fromEntries([...stdout.matchAll(/^ {2}([a-zA-Z ]+?) {2,}(\d+)$/gm)].map((m) => [m[1], Number(m[2])]))

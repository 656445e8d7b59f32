import { execFile } from 'node:child_process'
import path from 'node:path'
import { builtMain } from './server.js'

export const builtLogCli = path.join(path.dirname(builtMain), 'log-cli.js')

export interface CliResult {
  code: number | null
  stdout: string
  stderr: string
}

// `npm run log -- <args>` without the build step (the tests run on a built dist/).
export const runLogCli = (args: string[]): Promise<CliResult> =>
  new Promise((resolve) => {
    execFile(process.execPath, [builtLogCli, ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : null) : 0
      resolve({ code, stdout, stderr })
    })
  })

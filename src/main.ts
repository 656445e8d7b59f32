import { writeFileSync } from 'node:fs'
import path from 'node:path'
import { loadConfig } from './config.js'
import { createLogger, everyAtMost } from './logger.js'
import { startServer } from './server.js'

// A stop that is stuck (a hung commit, a disk that does not answer) must not outlive the process
// manager's patience: past this the process exits non-zero without its snapshots.
const shutdownDeadlineMs = 10_000

const fail = (message: string): never => {
  process.stderr.write(`could not start: ${message}\n`)
  process.exit(1)
}

const config = (() => {
  try {
    return loadConfig()
  } catch (error) {
    return fail(error instanceof Error ? error.message : String(error))
  }
})()
const logger = createLogger({ format: config.logFormat, level: config.logLevel })
// Libraries print their own errors to the console (lmdb-js prints every failed commit with its stack):
// one warning line each, without the stack and at most every 10 s; what a failure means is logged
// where it is handled.
const libraryLine = everyAtMost(10_000)
console.error = (...args: unknown[]) => {
  const message = args.map((arg) => (arg instanceof Error ? arg.message : String(arg))).join(' ').split('\n')[0].slice(0, 500)
  libraryLine((heldBack) => logger.warn('a library reported an error', { message, ...(heldBack > 0 && { heldBack }) }))
}
const server = await startServer(config, { logger }).catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))

// The one-time credentials of a first start are how a new user gets in. On a terminal they are printed
// (the only secrets this process ever prints); with JSON logs, which go to a log pipeline, they are
// written to a file only the server's user can read, and the log names the file.
const created = [
  server.createdAdminToken && `Created an admin API token (shown once; keep it): ${server.createdAdminToken}\nTry: curl -H "Authorization: ${server.createdAdminToken}" http://${config.host}:${server.port}/api/admin/projects`,
  server.createdAdminPassword && `Created the user "${config.defaultAdminUsername}" with password (shown once): ${server.createdAdminPassword}`,
].filter(Boolean)
if (created.length > 0) {
  if (config.logFormat === 'text') console.log(created.join('\n'))
  else {
    const file = path.join(config.dataDir, 'initial-credentials.txt')
    writeFileSync(file, `${created.join('\n')}\n`, { mode: 0o600 })
    logger.info('created the first admin credentials; they are in a file readable by this user only', { file })
  }
}
logger.info(`listening on http://${config.host}:${server.port} (data in ${config.dataDir}, ${server.replayed} events replayed)`)

let stopping = false
const stop = (signal: string) => {
  if (stopping) return
  stopping = true
  logger.info(`${signal}: finishing requests in flight, writing snapshots and stopping`)
  setTimeout(() => {
    logger.error(`stopping took more than ${shutdownDeadlineMs / 1000} s; exiting without waiting further`)
    process.exit(1)
  }, shutdownDeadlineMs).unref()
  server.close().then(
    () => {
      logger.info('stopped')
      process.exit(0)
    },
    (error: unknown) => {
      logger.error('error while stopping', error)
      process.exit(1)
    },
  )
}
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))
// A write past the file-size limit must fail that commit (503), not end the process. Node ignores
// SIGXFSZ, but a module preloaded through NODE_OPTIONS (an APM agent, a test runner) may catch it and
// re-raise it when it is the only listener: this listener keeps it from being the only one.
process.on('SIGXFSZ', () => undefined)

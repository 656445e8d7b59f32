import { createHash } from 'node:crypto'
import { closeSync, openSync, readFileSync, realpathSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import net from 'node:net'
import path from 'node:path'

// One server per data directory: two processes appending to one LMDB log hand out the same event
// ids and overwrite each other's records.
export interface DataDirLock {
  release(): Promise<void>
}

export class DataDirInUse extends Error {}

export const lockFileName = 'server.lock'

const holderOf = (lockFile: string): string => {
  try {
    const pid = readFileSync(lockFile, 'utf8').trim()
    return /^\d+$/.test(pid) ? `PID ${pid}` : 'another process'
  } catch {
    return 'another process'
  }
}

const inUse = (dir: string, lockFile: string) =>
  new DataDirInUse(`the data directory ${dir} is in use by ${holderOf(lockFile)} (lock file ${lockFile}); stop that server or choose another DATA_DIR`)

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

// Linux: an abstract UNIX socket named after the directory. Binding it is atomic and the kernel
// releases it when the process dies, even by SIGKILL, so a crash never leaves a stale lock behind;
// the lock file beside the data only tells a second server which PID holds it.
const lockWithAbstractSocket = (dir: string, lockFile: string): Promise<DataDirLock> =>
  new Promise((resolve, reject) => {
    const name = `\0unleash-server:${createHash('sha256').update(dir).digest('hex')}`
    const guard = net.createServer()
    guard.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? inUse(dir, lockFile) : error))
    guard.listen(name, () => {
      guard.unref()
      writeFileSync(lockFile, `${process.pid}\n`)
      resolve({
        release: async () => {
          if (holderOf(lockFile) === `PID ${process.pid}`) rmSync(lockFile, { force: true })
          await new Promise<void>((done) => guard.close(() => done()))
        },
      })
    })
  })

// Elsewhere: the lock file is created exclusively; one left by a dead process is taken over.
const lockWithPidFile = async (dir: string, lockFile: string): Promise<DataDirLock> => {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(lockFile, 'wx')
      writeSync(fd, `${process.pid}\n`)
      closeSync(fd)
      return { release: async () => rmSync(lockFile, { force: true }) }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(readFileSync(lockFile, 'utf8').trim())
      if (Number.isSafeInteger(pid) && pid > 0 && isAlive(pid)) break
      rmSync(lockFile, { force: true })
    }
  }
  throw inUse(dir, lockFile)
}

export const lockDataDir = (dataDir: string): Promise<DataDirLock> => {
  const dir = realpathSync(dataDir)
  const lockFile = path.join(dir, lockFileName)
  return process.platform === 'linux' ? lockWithAbstractSocket(dir, lockFile) : lockWithPidFile(dir, lockFile)
}

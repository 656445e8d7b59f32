import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { DataDirInUse, lockDataDir, lockFileName } from '../../src/store/data-dir-lock.js'

t.test('a second lock on a held data directory is refused, naming the directory and the PID', async (t) => {
  const dir = t.testdir()
  const first = await lockDataDir(dir)
  t.equal(readFileSync(path.join(dir, lockFileName), 'utf8').trim(), String(process.pid), 'the lock file holds our PID')
  const second = await lockDataDir(dir).then(
    () => undefined,
    (error: unknown) => error,
  )
  t.ok(second instanceof DataDirInUse, 'refused with DataDirInUse')
  t.match((second as Error).message, `in use by PID ${process.pid}`)
  t.match((second as Error).message, dir)
  await first.release()
})

t.test('a released lock can be taken again and leaves no lock file behind', async (t) => {
  const dir = t.testdir()
  await (await lockDataDir(dir)).release()
  t.notOk(existsSync(path.join(dir, lockFileName)), 'the lock file is gone')
  const again = await lockDataDir(dir)
  t.ok(existsSync(path.join(dir, lockFileName)), 'taken again')
  await again.release()
})

t.test('a lock file left by a process that died does not hold the directory', async (t) => {
  // What SIGKILL leaves: the file, with a PID that no longer runs.
  const dir = t.testdir({ [lockFileName]: '2147483646\n' })
  const lock = await lockDataDir(dir)
  t.equal(readFileSync(path.join(dir, lockFileName), 'utf8').trim(), String(process.pid))
  await lock.release()
})

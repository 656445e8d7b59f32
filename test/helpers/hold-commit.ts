// Preloaded into a child server (NODE_OPTIONS=--import dist/test/helpers/hold-commit.js) by the test of
// a crash between a decision and its commit: the write transaction of the first append that names the
// flag HOLD_COMMIT_FEATURE writes HOLD_COMMIT_MARKER and then never ends, so the process is killed with
// that decision appended but not committed. It patches the built EventLog, the one main.js imports.
import { writeFileSync } from 'node:fs'
import { EventLog, type Appended, type EventLogOptions, type StoredRecord } from '../../src/store/log.js'

const feature = process.env.HOLD_COMMIT_FEATURE
const marker = process.env.HOLD_COMMIT_MARKER
if (feature && marker) {
  let holdNext = false
  const append = EventLog.prototype.append
  EventLog.prototype.append = function <R extends StoredRecord>(this: EventLog, drafts: Omit<R, 'id'>[], indexKeysOf?: (record: R) => string[]): Appended<R> {
    if (drafts.some((draft) => (draft as { featureName?: string }).featureName === feature)) holdNext = true
    return append.call(this, drafts, indexKeysOf as never) as Appended<R>
  }
  const open = EventLog.open.bind(EventLog)
  EventLog.open = (path: string, options: EventLogOptions = {}) =>
    open(path, {
      ...options,
      writeGate: () => {
        if (!holdNext) return
        writeFileSync(marker, String(process.pid))
        // The transaction never ends: this process waits here to be killed.
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
      },
    })
}

// How long a snapshot set holds the event loop (issue 26: no pause over 20 ms at 50,000 flags), in
// process and without HTTP: the state of a seeded data directory (a copy of it) is recovered, some of
// its flags are changed, and a set is written the way the server writes one while serving
// (encodeEntries in slices, yielding between them, then EventLog.writeSnapshotSet). Reported per case:
// the chunks written, the longest slice of encoding, the longest GC pause (and its kind) and the
// collections during the set, and the event loop's longest block over the whole set
// (monitorEventLoopDelay, 1 ms resolution; garbage collection included).
// Run: node dist/bench/startup-memory.js --flags 50000 --data /tmp/d50k --seed-only
//      node dist/bench/snapshot-pauses.js --data /tmp/d50k
import { cpSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { constants as perfConstants, monitorEventLoopDelay, PerformanceObserver, type PerformanceEntry } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { recover, snapshotEntries, snapshotFormat, type ReplayedReadModel } from '../src/actors/recovery.js'
import { encodeEntries, servingPause } from '../src/actors/snapshot-codec.js'
import { nextTurn } from '../src/next-turn.js'
import type { EventRecord } from '../src/domain/events.js'
import { withEntry } from '../src/domain/immutable.js'
import type { ProjectState } from '../src/domain/project-state.js'
import { ClientRevisions } from '../src/read/client-revisions.js'
import { ProjectInsights, type ProjectInsightsSnapshot } from '../src/read/project-insights.js'
import { EventLog } from '../src/store/log.js'
import { fixed, formatTable, thousands } from './lib/format-table.js'
import { describeMachine, machineInfo } from './lib/machine-info.js'
import { tempDir } from './lib/child-server.js'

const { values: args } = parseArgs({ options: { data: { type: 'string' } } })
if (!args.data) throw new Error('--data: a data directory seeded by startup-memory.js --seed-only')

const root = tempDir('snapshot-pauses-')
const dir = path.join(root, 'data')
cpSync(path.resolve(args.data), dir, { recursive: true })
rmSync(path.join(dir, 'server.lock'), { force: true })

try {
  console.log(`snapshot sets of ${args.data}; ${describeMachine(machineInfo())}; load ${os.loadavg().map((n) => fixed(n, 2)).join(' ')}`)
  const log = EventLog.open(dir)
  const revisions = new ClientRevisions()
  const insights = new ProjectInsights(() => new Date())
  const readModels: ReplayedReadModel[] = [
    { key: 'clientRevisions', restore: (s) => revisions.restore(s), apply: () => undefined, snapshot: () => revisions.snapshot() },
    { key: 'insights', restore: (s) => insights.restore(s as ProjectInsightsSnapshot), apply: (r) => insights.apply([r as EventRecord]), snapshot: () => insights.snapshot() },
  ]
  const recovered = recover(log, readModels)
  const projects = new Map(recovered.projects)
  const flags = [...projects.values()].reduce((n, p) => n + p.features.size, 0)
  console.log(`recovered ${thousands(flags)} flags (${recovered.fromSnapshot ? 'from a snapshot' : 'by replaying the log'}, ${fixed(recovered.seconds.snapshot + recovered.seconds.replay, 2)} s)`)

  // Changes `count` flags spread over the projects' flags, as that many writes would.
  const change = (count: number) => {
    for (const [id, project] of projects) {
      const names = [...project.features.keys()]
      let features = project.features
      for (let i = 0; i < Math.min(count, names.length); i++) {
        const name = names[Math.floor((i * names.length) / Math.min(count, names.length))]
        const feature = features.get(name)!
        features = withEntry(features, name, { ...feature, description: `${feature.description ?? ''}.` })
      }
      projects.set(id, { ...project, features } as ProjectState)
    }
  }

  // Garbage collections, to tell the encoder's own work from V8's pauses within a slice.
  const collections: PerformanceEntry[] = []
  const observer = new PerformanceObserver((list) => collections.push(...list.getEntries()))
  observer.observe({ entryTypes: ['gc'] })
  const gcWithin = (from: number, to: number) =>
    collections.reduce((ms, gc) => ms + Math.max(0, Math.min(to, gc.startTime + gc.duration) - Math.max(from, gc.startTime)), 0)

  // Which collection a pause was: a scavenge of the young generation, or a mark-compact's atomic pause.
  const gcKind = (gc: PerformanceEntry) => {
    const kind = (gc as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind
    return kind === perfConstants.NODE_PERFORMANCE_GC_MINOR ? 'minor' : kind === perfConstants.NODE_PERFORMANCE_GC_MAJOR ? 'major' : kind === perfConstants.NODE_PERFORMANCE_GC_INCREMENTAL ? 'incremental' : 'weak callbacks'
  }

  const rows: string[][] = []
  const write = async (label: string) => {
    const delay = monitorEventLoopDelay({ resolution: 1 })
    const entries = snapshotEntries(recovered.instance, projects, recovered.changeRequests, recovered.lastId, readModels)
    delay.enable()
    const began = performance.now()
    let slice = performance.now()
    let longest = 0
    let longestOwn = 0
    // The process's CPU time in a slice: on a busy machine a slice's wall time is mostly waiting for a core.
    let longestCpu = 0
    let cpu = process.cpuUsage()
    const cpuSince = () => {
      const used = process.cpuUsage(cpu)
      return (used.user + used.system) / 1000
    }
    let slices = 0
    collections.length = 0
    const set = log.snapshotSet(snapshotFormat)
    const sliceEnds = async () => {
      // Let the observer hear of collections in this slice first.
      await new Promise((resolve) => setImmediate(resolve))
      const now = performance.now()
      longestCpu = Math.max(longestCpu, cpuSince())
      longest = Math.max(longest, now - slice)
      longestOwn = Math.max(longestOwn, now - slice - gcWithin(slice, now))
    }
    const pause = servingPause(log, set)
    await encodeEntries(set, entries, async () => {
      const ended = performance.now()
      longestCpu = Math.max(longestCpu, cpuSince())
      longest = Math.max(longest, ended - slice)
      slices++
      await pause()
      longestOwn = Math.max(longestOwn, ended - slice - gcWithin(slice, ended))
      slice = performance.now()
      cpu = process.cpuUsage()
    })
    await sliceEnds()
    const encoded = performance.now()
    await log.writeSnapshotSet(set)
    await nextTurn()
    delay.disable()
    const longestGc = collections.reduce<PerformanceEntry | undefined>((longest, gc) => (!longest || gc.duration > longest.duration ? gc : longest), undefined)
    rows.push([
      label,
      thousands(set.blobsStored),
      thousands(slices + 1),
      fixed(longest, 1),
      fixed(longestOwn, 1),
      fixed(longestCpu, 1),
      longestGc ? `${fixed(longestGc.duration, 1)} (${gcKind(longestGc)})` : '0',
      `${collections.length}, ${fixed(collections.reduce((ms, gc) => ms + gc.duration, 0), 0)} ms`,
      fixed(encoded - began, 0),
      fixed(performance.now() - encoded, 0),
      fixed(delay.max / 1e6, 1),
    ])
    console.log(`  ${label}: ${rows[rows.length - 1].slice(1).join(' | ')}`)
  }

  await write('first set after a start (nothing changed)')
  change(1)
  await write('1 flag changed')
  change(100)
  await write('100 flags changed, spread out')
  change(5000)
  await write('5,000 flags changed, spread out')
  change(flags)
  await write('every flag changed')
  await log.close()

  console.log('')
  observer.disconnect()
  console.log(formatTable(['set', 'chunks written', 'slices', 'longest slice, ms', 'without GC, ms', 'its CPU, ms', 'longest GC pause, ms (kind)', 'collections, their time', 'encoding, ms', 'writing, ms', 'longest event-loop block, ms'], rows))
  console.log(`load at the end ${os.loadavg().map((n) => fixed(n, 2)).join(' ')}`)
} finally {
  rmSync(root, { recursive: true, force: true })
}

import { createHash } from 'node:crypto'
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { open } from 'lmdb'
import { Packr } from 'msgpackr'
import t from 'tap'
import { EventLog } from '../../src/store/log.js'

// Real LMDB in a temporary directory: reopening proves what is on disk.

interface Note {
  id: number
  text: string
  project?: string
  feature?: string
}

const keysOf = (record: Note): string[] => [
  ...(record.project ? [`project:${record.project}`] : []),
  ...(record.feature ? [`feature:${record.feature}`] : []),
]

const withLog = async <T>(path: string, use: (log: EventLog) => Promise<T> | T): Promise<T> => {
  const log = EventLog.open(path)
  try {
    return await use(log)
  } finally {
    await log.close()
  }
}

// A log whose commits all fail, as on a full disk, while `disk.full` is set.
const logOnFillableDisk = (dir: string): { log: EventLog; disk: { full: boolean } } => {
  const disk = { full: false }
  const log = EventLog.open(dir, {
    writeGate: () => {
      if (disk.full) throw new Error('MDB_MAP_FULL')
    },
  })
  return { log, disk }
}

// Changes the snapshot database behind the log's back, as a crash or a bad disk would.
const tamper = async (path: string, change: (db: { get(key: string): Buffer | undefined; putSync(key: string, value: Buffer): void; removeSync(key: string): void }) => void) => {
  const root = open({ path, compression: false, noSubdir: false })
  const snapshots = root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
  change({
    get: (key) => snapshots.get(key),
    putSync: (key, value) => void snapshots.putSync(key, value),
    removeSync: (key) => void snapshots.removeSync(key),
  })
  await root.close()
}

t.test('append', async (t) => {
  t.test('assigns ids 1..N in call order, synchronously', async (t) => {
    await withLog(t.testdir(), async (log) => {
      t.equal(log.lastId, 0, 'an empty log')
      const first = log.append<Note>([{ text: 'a' }, { text: 'b' }])
      const second = log.append<Note>([{ text: 'c' }])
      t.same(first.records.map((r) => r.id), [1, 2])
      t.same(second.records.map((r) => r.id), [3])
      t.equal(log.lastId, 3, 'before anything is committed')
      await Promise.all([first.committed, second.committed])
      t.same(Array.from(log.from(1), (r) => (r as Note).text), ['a', 'b', 'c'])
      t.same(log.get(2), { id: 2, text: 'b' })
      t.equal(log.count(), 3)
    })
  })

  t.test('an empty append takes no id', async (t) => {
    await withLog(t.testdir(), async (log) => {
      const appended = log.append<Note>([])
      await appended.committed
      t.same(appended.records, [])
      t.equal(log.lastId, 0)
      t.equal(log.append<Note>([{ text: 'a' }]).records[0].id, 1)
    })
  })

  t.test('concurrent appends commit in call order', async (t) => {
    await withLog(t.testdir(), async (log) => {
      const resolved: number[] = []
      const batches = Array.from({ length: 50 }, (_, i) => log.append<Note>(Array.from({ length: 1 + (i % 3) }, (_, j) => ({ text: `${i}.${j}` }))))
      await Promise.all(batches.map((b, i) => b.committed.then(() => resolved.push(i))))
      t.same(resolved, batches.map((_, i) => i), 'commits resolve in call order')
      const expected = batches.flatMap((b) => b.records)
      t.same(expected.map((r) => r.id), expected.map((_, i) => i + 1), 'ids are dense and increasing')
      t.same(Array.from(log.from(1)), expected, 'the log holds every record in id order')
    })
  })

  t.test('a committed record is readable as soon as its promise resolves', async (t) => {
    await withLog(t.testdir(), async (log) => {
      const appended = log.append<Note>([{ text: 'durable' }])
      await appended.committed
      t.same(log.get(1), { id: 1, text: 'durable' })
    })
  })

  t.test('from(n) starts at n; newest(n) is newest first', async (t) => {
    await withLog(t.testdir(), async (log) => {
      await log.append<Note>(Array.from({ length: 10 }, (_, i) => ({ text: `n${i + 1}` }))).committed
      t.same(Array.from(log.from(8), (r) => r.id), [8, 9, 10])
      t.same(Array.from(log.from(11)), [])
      t.same(log.newest(3).map((r) => r.id), [10, 9, 8])
    })
  })
})

t.test('records survive reopening, and ids continue after them', async (t) => {
  const path = t.testdir()
  await withLog(path, async (log) => {
    await log.append<Note>([{ text: 'a', project: 'web' }, { text: 'b' }]).committed
    await log.append<Note>([{ text: 'c', project: 'web', feature: 'checkout' }], keysOf).committed
  })
  await withLog(path, async (log) => {
    t.equal(log.lastId, 3)
    t.same(Array.from(log.from(1)), [
      { id: 1, text: 'a', project: 'web' },
      { id: 2, text: 'b' },
      { id: 3, text: 'c', project: 'web', feature: 'checkout' },
    ])
    t.same(log.idsFor('feature:checkout'), [3], 'the index survives too')
    const next = log.append<Note>([{ text: 'd' }])
    t.same(next.records.map((r) => r.id), [4])
    await next.committed
  })
  await withLog(path, (log) => {
    t.equal(log.lastId, 4)
  })
})

t.test('the path is a data directory, even when its name has a dot', async (t) => {
  const path = join(t.testdir(), 'flags.v2')
  mkdirSync(path)
  await withLog(path, async (log) => {
    await log.append<Note>([{ text: 'a' }]).committed
  })
  t.ok(statSync(path).isDirectory())
  t.ok(readdirSync(path).includes('data.mdb'), 'the database lives inside it')
  await withLog(path, (log) => {
    t.equal(log.lastId, 1)
  })
})

t.test('index lookups', async (t) => {
  await withLog(t.testdir(), async (log) => {
    await log.append<Note>(
      [
        { text: '1', project: 'web', feature: 'checkout' },
        { text: '2', project: 'mobile', feature: 'search' },
        { text: '3', project: 'web' },
        { text: '4', project: 'web-shop', feature: 'checkout-v2' },
        { text: '5', project: 'web', feature: 'checkout' },
        { text: '6' },
      ],
      keysOf,
    ).committed
    t.same(log.idsFor('project:web', { reverse: true }), [5, 3, 1], 'a project, newest first')
    t.same(log.idsFor('project:web'), [1, 3, 5], 'oldest first')
    t.same(log.idsFor('feature:checkout', { reverse: true }), [5, 1], 'a feature, newest first; no prefix match on checkout-v2')
    t.same(log.idsFor('project:web', { reverse: true, limit: 2 }), [5, 3], 'with a limit')
    t.same(log.idsFor('project:nope'), [])
    t.equal(log.countFor('project:web'), 3)
    t.equal(log.countFor('feature:search'), 1)
    t.equal(log.countFor('project:nope'), 0)
  })
})

t.test('snapshots', async (t) => {
  const state = () => ({
    settings: { id: 'web', featureLimit: null, createdAt: '2024-01-01T00:00:00.000Z' },
    environments: new Map([['development', { environment: 'development', defaultStrategy: null }]]),
    features: new Map([
      ['checkout', { name: 'checkout', environments: new Map([['development', { enabled: true, strategies: [{ id: 's1', parameters: { rollout: '50' } }] }]]), tags: [] }],
    ]),
  })

  const seeded = async (path: string) =>
    withLog(path, async (log) => {
      await log.append<Note>([{ text: 'a' }, { text: 'b' }]).committed
      await log.saveSnapshots(1, [
        { key: 'instance', lastId: 2, state: { environments: new Map([['development', { name: 'development' }]]) } },
        { key: 'project:web', lastId: 2, state: state() },
      ])
    })

  t.test('round-trip Maps, nested included, across a reopen', async (t) => {
    const path = t.testdir()
    await seeded(path)
    await withLog(path, (log) => {
      const entries = log.loadSnapshots(1)
      t.ok(entries, 'the snapshot set loads')
      t.same(entries?.map((e) => [e.key, e.lastId]), [
        ['instance', 2],
        ['project:web', 2],
      ])
      const web = entries?.find((e) => e.key === 'project:web')?.state as ReturnType<typeof state>
      t.ok(web.features instanceof Map, 'features is a Map again')
      t.ok(web.features.get('checkout')?.environments instanceof Map, 'nested Maps too')
      t.same(web, state())
    })
  })

  t.test('a newer set replaces the older one', async (t) => {
    const path = t.testdir()
    await seeded(path)
    await withLog(path, async (log) => {
      await log.append<Note>([{ text: 'c' }]).committed
      await log.saveSnapshots(1, [{ key: 'instance', lastId: 3, state: { n: 3 } }])
      t.same(log.loadSnapshots(1), [{ key: 'instance', lastId: 3, state: { n: 3 } }])
    })
  })

  t.test('a large entry does not leave msgpackr holding a large working buffer', async (t) => {
    // msgpackr's working buffer is shared by every codec of the module, so a fresh codec's answer
    // shows which buffer it is using.
    const workingBuffer = () => new Packr().pack(null).buffer.byteLength
    const large = { rows: Array.from({ length: 20_000 }, (_, i) => `row ${i} ${'x'.repeat(100)}`) }
    const path = t.testdir()
    await withLog(path, async (log) => {
      await log.append<Note>([{ text: 'a' }]).committed
      await log.saveSnapshots(1, [{ key: 'instance', lastId: 1, state: large }])
      t.ok(workingBuffer() < 1024 * 1024, `the working buffer is small after a 2 MB entry (${workingBuffer()} bytes)`)
      t.same(log.loadSnapshots(1), [{ key: 'instance', lastId: 1, state: large }], 'and the entry reads back whole')
    })
  })

  t.test('no snapshot yet → undefined', async (t) => {
    await withLog(t.testdir(), (log) => {
      t.equal(log.loadSnapshots(1), undefined)
    })
  })

  t.test('another format → undefined', async (t) => {
    const path = t.testdir()
    await seeded(path)
    await withLog(path, (log) => {
      t.equal(log.loadSnapshots(2), undefined)
      t.ok(log.loadSnapshots(1))
    })
  })

  t.test('a missing entry → undefined', async (t) => {
    const path = t.testdir()
    await seeded(path)
    await tamper(path, (db) => db.removeSync('project:web'))
    await withLog(path, (log) => {
      t.equal(log.loadSnapshots(1), undefined)
    })
  })

  t.test('corrupt entry bytes → undefined', async (t) => {
    for (const [name, corrupt] of [
      ['an invalid type byte', () => Buffer.from([0xc1])],
      ['truncated', (bytes: Buffer) => bytes.subarray(0, Math.floor(bytes.length / 2))],
      ['not a snapshot record', () => Buffer.from([0x2a])],
      ['empty', () => Buffer.alloc(0)],
    ] as const) {
      const path = t.testdir()
      await seeded(path)
      await tamper(path, (db) => db.putSync('project:web', corrupt(db.get('project:web')!)))
      await withLog(path, (log) => {
        t.equal(log.loadSnapshots(1), undefined, name)
      })
    }
  })

  t.test('a corrupt manifest → undefined', async (t) => {
    const path = t.testdir()
    await seeded(path)
    await tamper(path, (db) => db.putSync('\u0000manifest', Buffer.from([0xc1, 0x00])))
    await withLog(path, (log) => {
      t.equal(log.loadSnapshots(1), undefined)
    })
  })

  t.test('a snapshot ahead of the log → undefined', async (t) => {
    await withLog(t.testdir(), async (log) => {
      await log.append<Note>([{ text: 'a' }]).committed
      await log.saveSnapshots(1, [{ key: 'instance', lastId: 5, state: {} }])
      t.equal(log.loadSnapshots(1), undefined)
    })
  })
})

// Rewrites a stored record or link as someone with write access to the files could.
interface Rewritable {
  put(id: number, record: unknown): void
  remove(id: number): void
}
const rewrite = async (path: string, change: (log: Rewritable, chain: Rewritable) => void) => {
  const root = open({ path, compression: false, noSubdir: false })
  const writable = (name: string, encoding?: 'binary'): Rewritable => {
    const db = root.openDB<unknown, number>({ name, keyEncoding: 'uint32', encoding })
    return { put: (id, record) => void db.putSync(id, record), remove: (id) => void db.removeSync(id) }
  }
  change(writable('log'), writable('log-chain', 'binary'))
  await root.close()
}

const appendNotes = async (path: string, texts: string[]) =>
  withLog(path, async (log) => {
    await log.append<Note>(texts.map((text) => ({ text }))).committed
  })

t.test('hash chain', async (t) => {
  t.test('each link is sha256 of the previous hash and the canonical record; verify reports the head', async (t) => {
    const dir = t.testdir()
    await appendNotes(dir, ['a', 'b'])
    await withLog(dir, (log) => {
      const first = createHash('sha256').update(Buffer.alloc(32)).update('{"id":1,"text":"a"}').digest()
      const second = createHash('sha256').update(first).update('{"id":2,"text":"b"}').digest('hex')
      t.equal(log.hashOf(1), first.toString('hex'))
      t.equal(log.hashOf(2), second)
      t.same(log.verifyChain(), { ok: true, id: 2, hash: second })
    })
  })

  t.test('appends after a reopen chain to the stored head', async (t) => {
    const dir = t.testdir()
    await appendNotes(dir, ['a'])
    await appendNotes(dir, ['b', 'c'])
    await withLog(dir, (log) => t.match(log.verifyChain(), { ok: true, id: 3 }))
  })

  t.test('a failed commit takes its links back: the next append chains to the last committed record', async (t) => {
    const { log, disk } = logOnFillableDisk(t.testdir())
    await log.append<Note>([{ text: 'a' }]).committed
    disk.full = true
    await t.rejects(log.append<Note>([{ text: 'lost' }]).committed, /MDB_MAP_FULL/)
    disk.full = false
    const { records, committed } = log.append<Note>([{ text: 'b' }])
    await committed
    t.equal(records[0].id, 2)
    const first = createHash('sha256').update(Buffer.alloc(32)).update('{"id":1,"text":"a"}').digest()
    const second = createHash('sha256').update(first).update('{"id":2,"text":"b"}').digest('hex')
    t.same(log.verifyChain(), { ok: true, id: 2, hash: second })
    await log.close()
  })

  t.test('appends in flight behind a failed commit fail too; the ones made after it take the lost ids', async (t) => {
    const dir = t.testdir()
    let failing = 0
    const log = EventLog.open(dir, {
      writeGate: () => {
        if (failing > 0) {
          failing--
          throw new Error('MDB_MAP_FULL')
        }
      },
    })
    await log.append<Note>([{ text: 'a' }]).committed
    failing = 1
    const inFlight = [log.append<Note>([{ text: 'lost 1' }]), log.append<Note>([{ text: 'lost 2' }, { text: 'lost 3' }]), log.append<Note>([{ text: 'lost 4' }])]
    t.same(inFlight.map((a) => a.records[0].id), [2, 3, 5], 'ids were handed out before any commit')
    const outcomes = await Promise.allSettled(inFlight.map((a) => a.committed))
    t.same(outcomes.map((o) => o.status), ['rejected', 'rejected', 'rejected'], 'the failed commit and everything started behind it')
    const { records, committed } = log.append<Note>([{ text: 'b' }])
    await committed
    t.equal(records[0].id, 2, 'the first lost id is handed out again')
    t.same(Array.from(log.from(1), (r) => (r as Note).text), ['a', 'b'])
    t.match(log.verifyChain(), { ok: true, id: 2 })
    await log.close()
  })

  t.test('a failure heard after new appends were made does not take their ids back', async (t) => {
    const dir = t.testdir()
    let calls = 0
    let doomed: ReturnType<EventLog['append']> | undefined
    const log: EventLog = EventLog.open(dir, {
      writeGate: () => {
        if (++calls > 1) return
        // Made while the failing transaction commits, so it runs in the next one, after the failure is heard.
        setImmediate(() => (doomed = log.append<Note>([{ text: 'lost 2' }])))
        throw new Error('MDB_MAP_FULL')
      },
    })
    await t.rejects(log.append<Note>([{ text: 'lost 1' }]).committed, /MDB_MAP_FULL/)
    t.ok(doomed, 'an append was made before the failure was heard')
    const after = log.append<Note>([{ text: 'a' }])
    t.equal(after.records[0].id, 1, 'made once the failure was heard')
    await t.rejects(doomed!.committed, /the log does not end at record 1/)
    const next = log.append<Note>([{ text: 'b' }])
    t.equal(next.records[0].id, 2, 'the doomed append, heard later, left the ids alone')
    await Promise.all([after.committed, next.committed])
    t.same(Array.from(log.from(1), (r) => (r as Note).text), ['a', 'b'])
    t.match(log.verifyChain(), { ok: true, id: 2 })
    await log.close()
  })

  t.test('a record rewritten behind the log is found, by id', async (t) => {
    const dir = t.testdir()
    await appendNotes(dir, ['a', 'b', 'c'])
    await rewrite(dir, (log) => log.put(2, { id: 2, text: 'B' }))
    await withLog(dir, (log) => t.match(log.verifyChain(), { ok: false, id: 2, problem: /record 2 does not match its stored hash/ }))
  })

  t.test('a record removed from the middle or from the end is found', async (t) => {
    const middle = t.testdir()
    await appendNotes(middle, ['a', 'b', 'c'])
    await rewrite(middle, (log) => log.remove(2))
    await withLog(middle, (log) => t.match(log.verifyChain(), { ok: false, id: 2, problem: 'record 2 is missing: the log goes from 1 to 3' }))
    const end = t.testdir()
    await appendNotes(end, ['a', 'b', 'c'])
    await rewrite(end, (log) => log.remove(3))
    await withLog(end, (log) => t.match(log.verifyChain(), { ok: false, id: 3, problem: /not in the log/ }))
  })

  t.test('a data directory from before the chain gets one on open, from its first record', async (t) => {
    const dir = t.testdir()
    await appendNotes(dir, ['a', 'b'])
    await rewrite(dir, (_log, chain) => {
      chain.remove(1)
      chain.remove(2)
    })
    await withLog(dir, async (log) => {
      t.match(log.verifyChain(), { ok: true, id: 2 })
      await log.append<Note>([{ text: 'c' }]).committed
      t.match(log.verifyChain(), { ok: true, id: 3 })
    })
  })

  t.test('a chain cut short is reported, not refilled', async (t) => {
    const dir = t.testdir()
    await appendNotes(dir, ['a', 'b'])
    await rewrite(dir, (_log, chain) => chain.remove(2))
    await withLog(dir, (log) => t.match(log.verifyChain(), { ok: false, id: 2, problem: /record 2 has no stored hash/ }))
  })
})

// The Rss of the process's mappings of this data file, in KiB (Linux: /proc/self/smaps); undefined elsewhere.
const mappedKiB = (path: string): number | undefined => {
  let smaps: string
  try {
    smaps = readFileSync('/proc/self/smaps', 'utf8')
  } catch {
    return undefined
  }
  const file = join(path, 'data.mdb')
  let inFile = false
  let total = 0
  for (const line of smaps.split('\n')) {
    if (/^[0-9a-f]+-[0-9a-f]+ /.test(line)) inFile = line.endsWith(file)
    else if (inFile && line.startsWith('Rss:')) total += Number(line.split(/\s+/)[1])
  }
  return total
}

t.test('releaseReadPagesSoon reopens a touched log once the writes under way settle, holding new ones, and the mapped pages leave the RSS', async (t) => {
  const dir = t.testdir()
  await withLog(dir, async (log) => {
    t.equal(await log.releaseReadPagesSoon(), false, 'nothing touched the log since it was opened')
    const text = 'x'.repeat(4000)
    for (let batch = 0; batch < 20; batch++) {
      await log.append<Note>(Array.from({ length: 100 }, (_, i) => ({ text: `${batch}-${i}-${text}` })), keysOf).committed
    }
    let read = 0
    for (const record of log.from(1)) if ((record as Note).text.endsWith(text)) read++
    t.equal(read, 2000, 'every record read back before the release')
    const before = mappedKiB(dir)

    const iteration = log.from(1)[Symbol.iterator]()
    iteration.next()
    t.equal(await log.releaseReadPagesSoon(), false, 'not while a range read is under way')
    iteration.return?.()

    const sessions = log.side<{ n: number }>('test')
    await sessions.put('a', { n: 1 })
    const order: string[] = []
    const underWay = log.append<Note>([{ text: 'under way' }], keysOf)
    void underWay.committed.then(() => order.push('the append under way'))
    const storing = sessions.put('b', { n: 2 }).then(() => order.push('the side table write under way'))
    const release = log.releaseReadPagesSoon().then((released) => {
      order.push('released')
      return released
    })
    const held = log.append<Note>([{ text: 'held' }], keysOf)
    void held.committed.then(() => order.push('the held append'))
    t.equal(await release, true, 'released once the writes under way settled')
    const after = mappedKiB(dir)
    await Promise.all([underWay.committed, storing, held.committed])
    t.same(order.slice(0, 2).sort(), ['the append under way', 'the side table write under way'], 'the writes under way settled first')
    t.same(order.slice(2), ['released', 'the held append'], 'the append asked for meanwhile waited for the reopen')
    t.same([underWay.records[0].id, held.records[0].id], [2001, 2002], 'and took the next id')
    if (before === undefined || after === undefined) t.comment('no /proc/self/smaps here: the mapped pages were not measured')
    else {
      t.ok(before > 4000, `the writes and the read mapped ${before} KiB of the data file`)
      t.ok(after < 1024, `after the release ${after} KiB of it is mapped (the opening reads a few pages)`)
    }

    t.equal(await log.releaseReadPagesSoon(), true, 'released again: the held append touched it')
    t.equal(await log.releaseReadPagesSoon(), false, 'not again before anything touches it')
    t.equal(log.get(2001)?.id, 2001, 'the log reads on after the release')
    t.same(sessions.get('b'), { n: 2 }, 'a side table taken before the release reads on')
    await sessions.put('c', { n: 3 })
    t.same(Array.from(sessions.getRange(), ({ key }) => key), ['a', 'b', 'c'], 'and writes on')
    const { records, committed } = log.append<Note>([{ text: 'after' }], keysOf)
    await committed
    t.equal(records[0].id, 2003, 'appends go on with the next id')
    t.same(log.verifyChain(), { ok: true, id: 2003, hash: log.hashOf(2003) }, 'the chain holds across the releases')

    const backup = log.backup(join(t.testdirName, 'backup'))
    t.equal(await log.releaseReadPagesSoon(), false, 'not while a backup is under way')
    await backup
  })
  await withLog(dir, (log) => t.equal(log.lastId, 2003, 'and all of it is on disk'))
})

t.test('closing the log while a release waits lets it finish: the writes it held commit', async (t) => {
  const dir = t.testdir()
  const log = EventLog.open(dir)
  await log.append<Note>([{ text: 'first' }], keysOf).committed
  const underWay = log.append<Note>([{ text: 'under way' }], keysOf)
  const release = log.releaseReadPagesSoon()
  const held = log.append<Note>([{ text: 'held' }], keysOf)
  await log.close()
  t.equal(await release, true, 'the release finished')
  await underWay.committed
  await held.committed
  await withLog(dir, (reopened) => t.same([...reopened.from(1)].map((record) => (record as Note).text), ['first', 'under way', 'held'], 'every write is on disk, in order'))
})

t.test('a failed commit never leaves the log closed half-way by a release: the appends after it commit', async (t) => {
  const { log, disk } = logOnFillableDisk(t.testdir())
  await log.append<Note>([{ text: 'a' }]).committed
  disk.full = true
  await t.rejects(log.append<Note>([{ text: 'lost' }]).committed, /MDB_MAP_FULL/)
  await log.releaseReadPagesSoon()
  disk.full = false
  await log.append<Note>([{ text: 'b' }]).committed
  t.equal(await log.releaseReadPagesSoon(), true, 'released once a write went through')
  await log.append<Note>([{ text: 'c' }]).committed
  t.same(
    [...log.from(1)].map((record) => (record as Note).text),
    ['a', 'b', 'c'],
    'every committed record, and not the refused one',
  )
  await log.close()
})

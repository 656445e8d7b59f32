import t from 'tap'
import { open } from 'lmdb'
import { Packr } from 'msgpackr'
import { decodeSnapshotSet, encodeSnapshotSet, EventLog } from '../../src/store/log.js'
import { snapshotFormat } from '../../src/actors/recovery.js'
import { PersistentMap, withEntry, withoutEntry } from '../../src/domain/immutable.js'

t.test('a snapshot keeps PersistentMaps, nested ones too, with their entries in order', async (t) => {
  let features: ReadonlyMap<string, unknown> = new Map()
  for (let i = 0; i < 130; i++) features = withEntry(features, `flag-${i}`, { name: `flag-${i}`, environments: PersistentMap.from([['development', { enabled: i % 2 === 0 }]]) })
  features = withoutEntry(features, 'flag-3')
  const [entry] = decodeSnapshotSet(snapshotFormat, encodeSnapshotSet(snapshotFormat, [{ key: 'project:web', lastId: 7, state: { features } }]))!
  const restored = (entry.state as { features: ReadonlyMap<string, { environments: ReadonlyMap<string, { enabled: boolean }> }> }).features
  t.ok(restored instanceof PersistentMap)
  t.equal(restored.size, 129)
  t.same([...restored.keys()], [...features.keys()])
  t.ok(restored.get('flag-4')!.environments instanceof PersistentMap)
  t.same(restored.get('flag-4')!.environments.get('development'), { enabled: true })
  t.equal(restored.has('flag-3'), false)
})

t.test('a snapshot taken after a change shows the change, and the entries left alone as they were', async (t) => {
  let features: ReadonlyMap<string, { rollout: number }> = PersistentMap.from(Array.from({ length: 300 }, (_, i) => [`flag-${i}`, { rollout: i }]))
  const decode = (map: ReadonlyMap<string, { rollout: number }>) =>
    (decodeSnapshotSet(snapshotFormat, encodeSnapshotSet(snapshotFormat, [{ key: 'project:web', lastId: 1, state: { features: map } }]))![0].state as { features: ReadonlyMap<string, { rollout: number }> }).features
  t.equal(decode(features).get('flag-4')?.rollout, 4)
  features = withEntry(features, 'flag-4', { rollout: 99 })
  features = withoutEntry(features, 'flag-250')
  const second = decode(features)
  t.equal(second.get('flag-4')?.rollout, 99, 'the changed entry')
  t.equal(second.has('flag-250'), false, 'the removed entry')
  t.equal(second.get('flag-200')?.rollout, 200, 'an entry of an unchanged chunk')
  t.equal(second.size, 299)
})

// The chunks of a PersistentMap are blobs of their own in the data directory (store/snapshot-blobs.ts).
const blobNames = async (path: string): Promise<string[]> => {
  const root = open({ path, compression: false, noSubdir: false })
  const names = [...root.openDB<Buffer, string>({ name: 'snapshot-blobs', encoding: 'binary' }).getKeys()] as string[]
  await root.close()
  return names
}

t.test('a set writes only the chunks changed since the last one and keeps no blob it does not name', async (t) => {
  const path = t.testdir()
  let features: ReadonlyMap<string, { rollout: number }> = PersistentMap.from(Array.from({ length: 300 }, (_, i) => [`flag-${i}`, { rollout: i }]))
  const log = EventLog.open(path)
  await log.append([{ text: 'a' }]).committed
  const set = log.snapshotSet(snapshotFormat)
  set.add({ key: 'project:web', lastId: 1, state: { features } })
  t.equal(set.fresh.size, 5, 'the first set writes every chunk (300 entries: 5 chunks)')
  await log.writeSnapshotSet(set)
  features = withEntry(features, 'flag-4', { rollout: 99 })
  const next = log.snapshotSet(snapshotFormat)
  next.add({ key: 'project:web', lastId: 1, state: { features } })
  t.equal(next.fresh.size, 1, 'one entry changed: one chunk written')
  await log.writeSnapshotSet(next)
  await log.close()
  t.equal((await blobNames(path)).length, 5, 'the replaced chunk is gone')

  const reopened = EventLog.open(path)
  const [entry] = reopened.loadSnapshots(snapshotFormat)!
  const restored = (entry.state as { features: PersistentMap<string, { rollout: number }> }).features
  t.same([...restored], [...features], 'the entries come back in order')
  const again = reopened.snapshotSet(snapshotFormat)
  again.add(entry)
  t.equal(again.fresh.size, 0, 'a restored map keeps its chunks and their names: nothing to write')
  await reopened.close()
})

t.test('a chunk is stored as the list of its entries as pairs (the format sets were written in before)', async (t) => {
  const path = t.testdir()
  const features = withoutEntry(PersistentMap.from(Array.from({ length: 3 }, (_, i) => [`flag-${i}`, { rollout: i }])), 'flag-1')
  const log = EventLog.open(path)
  await log.append([{ text: 'a' }]).committed
  const set = log.snapshotSet(snapshotFormat)
  set.add({ key: 'project:web', lastId: 1, state: { features } })
  await log.writeSnapshotSet(set)
  await log.close()
  const root = open({ path, compression: false, noSubdir: false })
  const blobs = [...root.openDB<Buffer, string>({ name: 'snapshot-blobs', encoding: 'binary' }).getRange()].map(({ value }) => value)
  await root.close()
  t.equal(blobs.length, 1)
  t.same(new Packr({ structuredClone: true, moreTypes: true }).unpack(blobs[0]), [['flag-0', { rollout: 0 }], undefined, ['flag-2', { rollout: 2 }]])
})

t.test('a set whose blob is missing is not used', async (t) => {
  const path = t.testdir()
  const log = EventLog.open(path)
  await log.append([{ text: 'a' }]).committed
  await log.saveSnapshots(snapshotFormat, [{ key: 'project:web', lastId: 1, state: { features: PersistentMap.from([['a', 1]]) } }])
  await log.close()
  const root = open({ path, compression: false, noSubdir: false })
  const blobs = root.openDB<Buffer, string>({ name: 'snapshot-blobs', encoding: 'binary' })
  for (const name of [...blobs.getKeys()]) blobs.removeSync(name as string)
  await root.close()
  const reopened = EventLog.open(path)
  t.equal(reopened.loadSnapshots(snapshotFormat), undefined)
  await reopened.close()
})

t.test('entries of a chunk that share an object (states are values) come back equal, Maps and Sets included', async (t) => {
  const shared = { strategies: [{ name: 'default', constraints: [] }], variants: new Set(['a']) }
  const environments = new Map([['development', shared]])
  const features: ReadonlyMap<string, unknown> = PersistentMap.from([
    ['one', { name: 'one', environments, tags: shared.strategies }],
    ['two', { name: 'two', environments, tags: shared.strategies }],
  ])
  const [entry] = decodeSnapshotSet(snapshotFormat, encodeSnapshotSet(snapshotFormat, [{ key: 'project:web', lastId: 1, state: { features } }]))!
  const restored = (entry.state as { features: ReadonlyMap<string, { environments: Map<string, typeof shared> }> }).features
  t.same([...restored.entries()], [...features.entries()])
  t.ok(restored.get('two')!.environments instanceof Map, 'a Map')
  t.ok(restored.get('two')!.environments.get('development')!.variants instanceof Set, 'a Set')
})

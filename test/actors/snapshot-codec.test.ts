import t from 'tap'
import { decodeSnapshotSet, encodeSnapshotSet } from '../../src/store/log.js'
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

import t from 'tap'
import { applyRecord, recover } from '../../src/actors/recovery.js'
import type { EventRecord } from '../../src/domain/events.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { EventLog } from '../../src/store/log.js'
import { createFeature, createProject, expectOk, getFeature } from '../helpers/admin-api.js'
import { fakeClock, startClockedServer } from '../helpers/clocked-server.js'
import {
  completeFeature,
  createTagType,
  exportFeatures,
  favoriteFeature,
  favoriteProject,
  importFeatures,
  markStale,
  setFeatureTypeLifetime,
  tagFeature,
} from '../helpers/curation-api.js'
import { eventually } from '../helpers/expect.js'

// What this events build must be rebuilt by replaying the log alone: the state the server
// saved in its snapshot at shutdown equals the state replayed from event 1.
t.test('replaying the log rebuilds tags, favorites, lifecycle, staleness, flag types and imports', async (t) => {
  const clock = fakeClock('2024-05-01T00:00:00.000Z')
  const server = await startClockedServer(t, { clock, env: { POTENTIALLY_STALE_CHECK_MS: '30' } })
  expectOk(await createProject(server, { id: 'r', name: 'Replay' }), 'project')
  expectOk(await createFeature(server, 'r', { name: 'ops', type: 'operational' }), 'ops')
  expectOk(await createFeature(server, 'r', 'rel'), 'rel')
  expectOk(await createTagType(server, { name: 'team' }), 'tag type')
  expectOk(await tagFeature(server, 'rel', { type: 'team', value: 'core' }), 'tag')
  expectOk(await favoriteFeature(server, 'r', 'rel'), 'favorite flag')
  expectOk(await favoriteProject(server, 'r'), 'favorite project')
  expectOk(await completeFeature(server, 'r', 'rel', { status: 'discarded' }), 'complete')
  expectOk(await markStale(server, 'r', ['rel'], true), 'stale')
  expectOk(await setFeatureTypeLifetime(server, 'experiment', 12), 'lifetime')
  const data = (await exportFeatures(server, { features: ['rel'], environment: 'development' })).body
  expectOk(await importFeatures(server, { project: 'r', environment: 'development', data: JSON.parse(JSON.stringify(data).replaceAll('"rel"', '"rel-copy"')) }), 'import')
  clock.advanceDays(8)
  t.ok(await eventually(async () => (await getFeature(server, 'r', 'ops')).body.potentiallyStale === true), 'ops marked potentially stale')
  await server.stop()

  const log = EventLog.open(server.dataDir)
  const fromSnapshot = recover(log)
  t.ok(fromSnapshot.fromSnapshot, 'the shutdown snapshot is used')
  const replayed = { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
  for (const record of log.from(1)) applyRecord(replayed, record as EventRecord)
  t.same(replayed.projects.get('r'), fromSnapshot.projects.get('r'), 'project state')
  t.same(replayed.instance.tagTypes, fromSnapshot.instance.tagTypes, 'tag types')
  t.same(replayed.instance.featureTypes, fromSnapshot.instance.featureTypes, 'flag types')
  const rel = replayed.projects.get('r')!.features.get('rel')!
  t.same(rel.tags, [{ type: 'team', value: 'core' }])
  t.equal(rel.favoritedBy!.length, 1)
  t.equal(rel.stale, true)
  t.match(rel.lifecycle, [{ stage: 'initial' }, { stage: 'completed', status: 'discarded' }])
  t.equal(replayed.projects.get('r')!.features.get('ops')!.potentiallyStale, true)
  t.same(replayed.projects.get('r')!.features.get('rel-copy')!.tags, [{ type: 'team', value: 'core' }])
  await log.close()
})

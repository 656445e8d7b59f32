import t from 'tap'
import type { EventRecord } from '../../src/domain/events.js'
import { ClientRevisions } from '../../src/read/client-revisions.js'

const event = (id: number, type: string, project?: string, environment?: string): EventRecord =>
  ({ id, type, project, environment, createdAt: '', createdBy: 'x', createdByUserId: null }) as EventRecord

const everything = () => true

t.test('a change in one environment does not move another environment\'s revision', async (t) => {
  const revisions = new ClientRevisions(10)
  revisions.record([event(11, 'feature-environment-enabled', 'a', 'production')], everything)
  t.equal(revisions.revisionFor('*', 'development'), 10)
  t.equal(revisions.revisionFor('*', 'production'), 11)
})

t.test('a change without an environment moves every environment of its project, and only that project', async (t) => {
  const revisions = new ClientRevisions(10)
  revisions.record([event(12, 'feature-created', 'a')], everything)
  t.equal(revisions.revisionFor(['a'], 'development'), 12)
  t.equal(revisions.revisionFor(['a'], 'production'), 12)
  t.equal(revisions.revisionFor(['b'], 'development'), 10)
  t.equal(revisions.revisionFor('*', 'development'), 12)
})

t.test('a segment change moves every scope', async (t) => {
  const revisions = new ClientRevisions(10)
  revisions.record([event(13, 'segment-updated')], everything)
  t.equal(revisions.revisionFor(['b'], 'production'), 13)
})

t.test('events outside the payload change nothing, and the version counts only those that can', async (t) => {
  const revisions = new ClientRevisions(10)
  const before = revisions.version()
  revisions.record([event(14, 'feature-favorited', 'a')], (type) => type !== 'feature-favorited')
  t.equal(revisions.version(), before)
  t.equal(revisions.revisionFor('*', 'development'), 10)
  revisions.record([event(15, 'feature-strategy-add', 'a', 'development')], everything)
  t.equal(revisions.version(), before + 1)
})

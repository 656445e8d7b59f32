import t from 'tap'
import { replicaDetails } from '../../src/api/health.routes.js'

t.test('a replica is ready only once restored and within its lag limit', async (t) => {
  t.same(replicaDetails({ appliedId: 0, writerId: 0, connected: true, restored: false }, 10), {
    role: 'replica', appliedId: 0, writerId: 0, lag: 0, natsConnected: true, notReady: "not yet restored from the writer's snapshot",
  })
  t.same(replicaDetails({ appliedId: 90, writerId: 100, connected: true, restored: true }, 10), {
    role: 'replica', appliedId: 90, writerId: 100, lag: 10, natsConnected: true,
  })
  t.same(replicaDetails({ appliedId: 89, writerId: 100, connected: false, restored: true }, 10), {
    role: 'replica', appliedId: 89, writerId: 100, lag: 11, natsConnected: false, notReady: '11 records behind the writer (the limit is 10)',
  })
})

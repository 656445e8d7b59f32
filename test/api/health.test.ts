import t from 'tap'
import { replicaDetails } from '../../src/api/health.routes.js'

const now = 1_800_000_000_000

t.test('a replica is ready only once restored and within its lag limit', async (t) => {
  t.same(replicaDetails({ appliedId: 0, writerId: 0, connected: true, restored: false, heardAt: undefined }, 10, now), {
    role: 'replica', appliedId: 0, writerId: 0, lag: 0, natsConnected: true, heardSecondsAgo: null, notReady: "not yet restored from the writer's snapshot",
  })
  t.same(replicaDetails({ appliedId: 90, writerId: 100, connected: true, restored: true, heardAt: now - 2_400 }, 10, now), {
    role: 'replica', appliedId: 90, writerId: 100, lag: 10, natsConnected: true, heardSecondsAgo: 2,
  })
})

t.test('cut off from NATS, a replica reports its lag as unknown and itself as degraded, and still serves', async (t) => {
  t.same(replicaDetails({ appliedId: 95, writerId: 100, connected: false, restored: true, heardAt: now - 42_000 }, 10, now), {
    role: 'replica', appliedId: 95, writerId: 100, lag: null, natsConnected: false, heardSecondsAgo: 42,
    degraded: 'not connected to NATS: serving what was applied up to log id 95; the writer was last heard from 42 s ago',
  })
  t.same(replicaDetails({ appliedId: 89, writerId: 100, connected: false, restored: true, heardAt: now - 1_000 }, 10, now), {
    role: 'replica', appliedId: 89, writerId: 100, lag: null, natsConnected: false, heardSecondsAgo: 1,
    degraded: 'not connected to NATS: serving what was applied up to log id 89; the writer was last heard from 1 s ago',
    notReady: '11 records behind the writer (the limit is 10)',
  }, 'a gap already too large when NATS went away still drains it')
})

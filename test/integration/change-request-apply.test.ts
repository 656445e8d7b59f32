import t from 'tap'
import { applyRecord, recover } from '../../src/actors/recovery.js'
import type { EventRecord } from '../../src/domain/events.js'
import { emptyInstance } from '../../src/domain/instance-state.js'
import { EventLog } from '../../src/store/log.js'
import { api } from '../helpers/admin-api.js'
import { callAs, createPerson, startPeopleServer } from '../helpers/people.js'

t.test('a request that enables an environment and adds a strategy applies only that strategy; its author is shown by username', async (t) => {
  const server = await startPeopleServer(t)
  const editor = await createPerson(server, { username: 'ed', email: 'ed@example.com', rootRole: 'Editor' })
  t.equal((await api(server, 'POST', '/api/admin/projects/default/features', { name: 'gated' })).status, 201)
  const config = await api(server, 'PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })
  t.equal(config.status, 204)

  const draft = await callAs(server, editor.session, 'POST', '/api/admin/projects/default/environments/production/change-requests', [
    { feature: 'gated', action: 'updateEnabled', payload: { enabled: true } },
    { feature: 'gated', action: 'addStrategy', payload: { name: 'userWithId', constraints: [], parameters: { userIds: 'alice' } } },
  ])
  t.equal(draft.status, 200, draft.text)
  const path = `/api/admin/projects/default/change-requests/${draft.body.id}`
  t.equal((await api(server, 'GET', path)).body.createdBy.username, 'ed', 'createdBy.username is the username, not the email')
  t.equal((await callAs(server, editor.session, 'PUT', `${path}/state`, { state: 'In review' })).status, 200)
  t.equal((await api(server, 'PUT', `${path}/state`, { state: 'Approved' })).status, 200)
  const applied = await api(server, 'PUT', `${path}/state`, { state: 'Applied' })
  t.equal(applied.status, 200, applied.text)

  const env = (await api(server, 'GET', '/api/admin/projects/default/features/gated/environments/production')).body
  t.equal(env.enabled, true)
  t.same(env.strategies.map((s: { name: string }) => s.name), ['userWithId'], 'no default 100 % strategy beside the one the request adds')
})

// Once applied, the flag no longer shows what a change replaced: the request keeps it, through a restart
// (from the shutdown snapshot) and a replay of the log alike.
t.test('an applied request shows what each change replaced, also after a restart and when replayed', async (t) => {
  let server = await startPeopleServer(t)
  const editor = await createPerson(server, { username: 'ed', email: 'ed@example.com', rootRole: 'Editor' })
  const flag = '/api/admin/projects/default/features/shown'
  const ok = async (method: 'POST' | 'PUT', path: string, body: unknown) => {
    const answer = await api(server, method, path, body)
    t.ok(answer.status < 300, `${method} ${path}: ${answer.text}`)
    return answer.body
  }
  await ok('POST', '/api/admin/projects/default/features', { name: 'shown' })
  const kept = await ok('POST', `${flag}/environments/production/strategies`, { name: 'flexibleRollout', title: 'half', parameters: { rollout: '50', stickiness: 'default', groupId: 'shown' } })
  const dropped = await ok('POST', `${flag}/environments/production/strategies`, { name: 'userWithId', parameters: { userIds: 'alice' } })
  const oldVariant = { name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default' }
  await ok('PUT', `${flag}/environments/production/variants`, [oldVariant])
  const segment = await ok('POST', '/api/admin/segments', { name: 'testers', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] })
  await ok('PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })

  const draft = await callAs(server, editor.session, 'POST', '/api/admin/projects/default/environments/production/change-requests', [
    { feature: 'shown', action: 'updateEnabled', payload: { enabled: true } },
    { feature: 'shown', action: 'updateStrategy', payload: { id: kept.id, name: 'flexibleRollout', title: 'all', parameters: { rollout: '100', stickiness: 'default', groupId: 'shown' } } },
    { feature: 'shown', action: 'deleteStrategy', payload: { id: dropped.id } },
    { feature: 'shown', action: 'patchVariant', payload: { variants: [{ ...oldVariant, name: 'green' }] } },
    { action: 'updateSegment', payload: { id: segment.id, name: 'testers', constraints: [{ contextName: 'userId', operator: 'IN', values: ['2'] }] } },
  ])
  t.equal(draft.status, 200, draft.text)
  const path = `/api/admin/projects/default/change-requests/${draft.body.id}`
  t.notOk(draft.body.features[0].changes.some((c: { replaced?: unknown }) => 'replaced' in c), 'an open request has recorded nothing yet')
  t.equal((await callAs(server, editor.session, 'PUT', `${path}/state`, { state: 'In review' })).status, 200)
  t.equal((await api(server, 'PUT', `${path}/state`, { state: 'Approved' })).status, 200)
  t.equal((await api(server, 'PUT', `${path}/state`, { state: 'Applied' })).status, 200)

  const now = (await api(server, 'GET', `${flag}/environments/production`)).body
  t.match(now, { enabled: true, strategies: [{ id: kept.id, title: 'all' }], variants: [{ name: 'green' }] }, 'the flag has moved on')
  const applied = (await api(server, 'GET', path)).body
  const changes = applied.features[0].changes
  t.match(changes[0], { action: 'updateEnabled', replaced: { enabled: false } }, 'the environment was off')
  t.match(changes[1], { action: 'updateStrategy', replaced: { id: kept.id, title: 'half', parameters: { rollout: '50' } }, payload: { title: 'all', snapshot: { id: kept.id, title: 'half' } } }, 'the strategy as it was, also as Unleash\'s payload.snapshot')
  t.match(changes[2], { action: 'deleteStrategy', replaced: { id: dropped.id, name: 'userWithId', parameters: { userIds: 'alice' } }, payload: { id: dropped.id, snapshot: { name: 'userWithId' } } }, 'the deleted strategy')
  t.match(changes[3], { action: 'patchVariant', replaced: [{ name: 'blue' }], payload: { variants: [{ name: 'green' }], snapshot: [{ name: 'blue' }] } }, 'the variants as they were')
  t.match(applied.segments[0], { action: 'updateSegment', name: 'testers', replaced: { id: segment.id, constraints: [{ values: ['1'] }] }, payload: { snapshot: { constraints: [{ values: ['1'] }] } } }, 'the segment as it was')
  const listed = (await api(server, 'GET', '/api/admin/projects/default/change-requests')).body.find((r: { id: number }) => r.id === draft.body.id)
  t.same(listed, applied, 'the list shows it too')

  server = await server.restart()
  t.same((await api(server, 'GET', path)).body, applied, 'the same after a restart')

  await server.stop()
  const log = EventLog.open(server.dataDir)
  try {
    const fromSnapshot = recover(log)
    t.ok(fromSnapshot.fromSnapshot, 'the restart read the shutdown snapshot')
    const replayed = { instance: emptyInstance(), projects: new Map(), changeRequests: new Map() }
    for (const record of log.from(1)) applyRecord(replayed, record as EventRecord)
    const request = replayed.changeRequests.get(draft.body.id)
    t.same(request, fromSnapshot.changeRequests.get(draft.body.id), 'replaying the log rebuilds the request the snapshot holds')
    t.match(request?.changes.map((c: { replaced?: unknown }) => c.replaced), [{ enabled: false }, { title: 'half' }, { name: 'userWithId' }, [{ name: 'blue' }], { name: 'testers' }])
  } finally {
    await log.close()
  }
})

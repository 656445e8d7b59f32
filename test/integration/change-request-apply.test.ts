import t from 'tap'
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

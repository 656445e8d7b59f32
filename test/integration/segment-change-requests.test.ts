import t from 'tap'
import { api } from '../helpers/admin-api.js'
import { callAs, createPerson, startPeopleServer } from '../helpers/people.js'

t.test('a project segment goes through a change request when the project requires them, and applying it changes the segment', async (t) => {
  const server = await startPeopleServer(t)
  const editor = await createPerson(server, { username: 'segment-editor', rootRole: 'Editor' })
  const created = await api(server, 'POST', '/api/admin/segments', { name: 'beta', project: 'default', constraints: [] })
  t.equal(created.status, 201)
  const id = created.body.id
  const update = { name: 'beta', project: 'default', constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }] }

  t.equal((await callAs(server, editor.session, 'PUT', `/api/admin/segments/${id}`, update)).status, 204, 'allowed while no environment requires change requests')
  const config = await api(server, 'PUT', '/api/admin/projects/default/environments/production/change-requests/config', { changeRequestsEnabled: true, requiredApprovals: 1 })
  t.equal(config.status, 204)

  const refused = await callAs(server, editor.session, 'PUT', `/api/admin/segments/${id}`, { ...update, name: 'beta-2' })
  t.equal(refused.status, 403, 'an editor must now use a change request')
  t.match(refused.body.message, /SKIP_CHANGE_REQUEST/)
  t.equal((await callAs(server, editor.session, 'DELETE', `/api/admin/segments/${id}`)).status, 403, 'deleting too')
  t.equal((await api(server, 'GET', `/api/admin/segments/${id}`)).body.name, 'beta', 'nothing changed')

  const viaRequest = await callAs(server, editor.session, 'POST', '/api/admin/projects/default/environments/production/change-requests', {
    feature: null,
    action: 'updateSegment',
    payload: { id, ...update, name: 'beta-2' },
  })
  t.equal(viaRequest.status, 200, 'the change request takes it')
  const requestPath = `/api/admin/projects/default/change-requests/${viaRequest.body.id}`
  t.equal((await callAs(server, editor.session, 'PUT', `${requestPath}/state`, { state: 'In review' })).status, 200, 'sent to review')
  t.equal((await api(server, 'PUT', `${requestPath}/state`, { state: 'Approved' })).status, 200, 'approved by an admin')
  t.equal((await api(server, 'GET', `/api/admin/segments/${id}`)).body.name, 'beta', 'not changed before it is applied')
  t.equal((await api(server, 'PUT', `${requestPath}/state`, { state: 'Applied' })).status, 200, 'applied')
  const applied = (await api(server, 'GET', `/api/admin/segments/${id}`)).body
  t.equal(applied.name, 'beta-2', 'applying the request updates the segment')
  t.same(applied.constraints.map((c: { values: string[] }) => c.values), [['1']])
  t.equal((await api(server, 'PUT', `/api/admin/segments/${id}`, { ...update, name: 'beta-3' })).status, 204, 'an admin may skip')
})

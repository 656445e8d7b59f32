import t from 'tap'
import {
  addStrategy,
  api,
  archiveFeature,
  clientToken,
  createFeature,
  createProject,
  deleteArchivedFeature,
  deleteStrategy,
  disableFeature,
  enableFeature,
  expectOk,
  getClientFeatures,
  getFeature,
  patchFeature,
  reviveFeature,
  updateStrategy,
  type ServerRef,
} from '../helpers/admin-api.js'
import { expectError } from '../helpers/expect.js'
import { callAs, createPerson, startPeopleServer } from '../helpers/people.js'
import { startTestServer } from '../helpers/server.js'

const P = 'revert'
const F = 'checkout'
const PARENT = 'payments'
const flagPath = `/api/admin/projects/${P}/features/${F}`
const head = async (server: ServerRef): Promise<number> => (await api(server, 'GET', '/api/admin/events/head')).body.id
const revert = (server: ServerRef, body: unknown) => api(server, 'POST', `${flagPath}/revert`, body)
const featureAt = async (server: ServerRef, id: number) => expectOk(await api(server, 'GET', `${flagPath}?at=${id}`), `flag at ${id}`).body
const eventTypesAfter = async (server: ServerRef, id: number): Promise<string[]> => {
  const events = (await api(server, 'GET', `/api/admin/events/${F}`)).body.events as { id: number; type: string }[]
  return events.filter((e) => e.id > id).sort((a, b) => a.id - b.id).map((e) => e.type)
}

t.test('revert brings a flag back to how it was just after an event, through ordinary events', async (t) => {
  const server = await startTestServer(t, { env: { SNAPSHOT_EVERY: '4' } })
  expectOk(await createProject(server, { id: P, name: P }), 'create project')
  const sdk = await clientToken(server, [P])
  expectOk(await createFeature(server, P, PARENT), 'create parent')
  expectOk(await createFeature(server, P, { name: F, description: 'first', type: 'release' }), 'create flag')
  const rollout = expectOk(
    await addStrategy(server, P, F, 'development', {
      name: 'flexibleRollout',
      parameters: { rollout: '25', stickiness: 'default', groupId: F },
      constraints: [{ contextName: 'userId', operator: 'IN', values: ['1', '2'] }],
    }),
    'add rollout',
  ).body
  const hosts = expectOk(await addStrategy(server, P, F, 'development', { name: 'applicationHostname', parameters: { hostNames: 'a,b' } }), 'add hosts').body
  expectOk(await enableFeature(server, P, F, 'development'), 'enable development')
  expectOk(await api(server, 'PUT', `${flagPath}/environments/development/variants`, [{ name: 'blue', weightType: 'variable', weight: 1000, stickiness: 'default' }]), 'variants')
  expectOk(await api(server, 'POST', `/api/admin/features/${F}/tags`, { type: 'simple', value: 'beta' }), 'tag beta')
  expectOk(await api(server, 'POST', `${flagPath}/dependencies`, { feature: PARENT, enabled: true }), 'depend on parent')
  const point = await head(server)
  const then = await featureAt(server, point)
  const servedThen = (await getClientFeatures(server, sdk)).body.features

  expectOk(await patchFeature(server, P, F, [{ op: 'replace', path: '/description', value: 'second' }, { op: 'replace', path: '/stale', value: true }]), 'patch metadata')
  expectOk(await api(server, 'PUT', flagPath, { type: 'kill-switch', description: 'second', stale: true }), 'change type')
  expectOk(await updateStrategy(server, P, F, 'development', rollout.id, { name: 'flexibleRollout', parameters: { rollout: '75', stickiness: 'default', groupId: F } }), 'update rollout')
  expectOk(await deleteStrategy(server, P, F, 'development', hosts.id), 'delete hosts')
  expectOk(await addStrategy(server, P, F, 'development', { name: 'default' }), 'add default')
  expectOk(await disableFeature(server, P, F, 'development'), 'disable development')
  expectOk(await enableFeature(server, P, F, 'production'), 'enable production')
  expectOk(await api(server, 'PUT', `${flagPath}/environments/development/variants`, [{ name: 'red', weightType: 'variable', weight: 1000, stickiness: 'default' }]), 'other variants')
  expectOk(await api(server, 'PUT', `/api/admin/features/${F}/tags`, { addedTags: [{ type: 'simple', value: 'gamma' }], removedTags: [{ type: 'simple', value: 'beta' }] }), 'retag')
  expectOk(await api(server, 'DELETE', `${flagPath}/dependencies/${PARENT}`), 'drop dependency')
  const changed = await head(server)
  t.not(JSON.stringify(await featureAt(server, changed)), JSON.stringify(then), 'the flag did change')

  const res = await revert(server, { toEventId: point })
  t.equal(res.status, 200)
  const now = expectOk(await getFeature(server, P, F), 'get').body
  t.same(res.body, now, 'answers the flag as GET shows it')
  t.same(now, then, 'field by field the flag of the ?at= view')
  t.equal(now.description, 'first')
  t.equal(now.type, 'release')
  t.equal(now.stale, false)
  const development = now.environments.find((e: { name: string }) => e.name === 'development')
  t.same(development.strategies.map((s: { id: string }) => s.id), [rollout.id, hosts.id], 'the strategies keep their ids')
  t.equal(development.strategies[0].parameters.rollout, '25')
  t.same(development.strategies[0].constraints, [{ contextName: 'userId', operator: 'IN', values: ['1', '2'], caseInsensitive: false, inverted: false }])
  t.same(development.variants.map((v: { name: string }) => v.name), ['blue'])
  t.equal(development.enabled, true)
  t.equal(now.environments.find((e: { name: string }) => e.name === 'production').enabled, false)
  t.same(now.tags, [{ type: 'simple', value: 'beta' }])
  t.same(now.dependencies, [{ feature: PARENT, enabled: true, variants: [] }])
  t.same((await getClientFeatures(server, sdk)).body.features, servedThen, 'SDKs are served what they were then')

  const recorded = await eventTypesAfter(server, changed)
  for (const type of ['feature-metadata-updated', 'feature-stale-off', 'feature-strategy-update', 'feature-strategy-add', 'feature-strategy-remove', 'feature-environment-enabled', 'feature-environment-disabled', 'feature-environment-variants-updated', 'feature-tagged', 'feature-untagged', 'feature-dependency-added']) {
    t.ok(recorded.includes(type), `records ${type}`)
  }

  const again = await head(server)
  expectOk(await revert(server, { toEventId: point }), 'revert again')
  t.equal(await head(server), again, 'reverting to the state it is in records nothing')
})

t.test('revert is refused: 400 naming toEventId, 404 when the flag did not exist then, 409 when it was archived or deleted since', async (t) => {
  const server = await startTestServer(t)
  expectOk(await createProject(server, { id: P, name: P }), 'create project')
  const before = await head(server)
  expectOk(await createFeature(server, P, F), 'create flag')
  const created = await head(server)

  for (const body of [{}, { toEventId: 0 }, { toEventId: 'x' }, { toEventId: 1.5 }]) {
    const res = await revert(server, body)
    expectError(t, res, { status: 400 }, JSON.stringify(body))
    t.match(JSON.stringify(res.body), 'toEventId', `${JSON.stringify(body)}: names toEventId`)
  }
  const future = await revert(server, { toEventId: created + 5 })
  expectError(t, future, { status: 400, message: `"toEventId": there is no event ${created + 5}; the newest is ${created}` })
  expectError(t, await revert(server, { toEventId: created, extra: 1 }), { status: 400 }, 'unknown property')

  const missing = await revert(server, { toEventId: before })
  expectError(t, missing, { status: 404, name: 'NotFoundError' })
  t.match(missing.body.message, `did not exist just after event ${before}`)

  expectOk(await archiveFeature(server, P, F), 'archive')
  expectError(t, await revert(server, { toEventId: created }), { status: 409, name: 'ConflictError', message: `Feature flag "${F}" is archived; revive it before reverting it` })
  const archived = await head(server)
  expectOk(await reviveFeature(server, F), 'revive')
  expectError(t, await revert(server, { toEventId: archived }), { status: 409, message: `Feature flag "${F}" was archived just after event ${archived}; archive it instead` })
  expectOk(await archiveFeature(server, P, F), 'archive again')
  expectOk(await deleteArchivedFeature(server, F), 'delete')
  const deleted = await revert(server, { toEventId: created })
  expectError(t, deleted, { status: 409, name: 'ConflictError' })
  t.match(deleted.body.message, `was deleted or moved out of project "${P}" after event ${created}`)
})

t.test('revert goes through change requests: an environment that requires them is refused to those who may not skip them', async (t) => {
  const server = await startPeopleServer(t)
  expectOk(await createProject(server, { id: P, name: P }), 'create project')
  expectOk(await createFeature(server, P, F), 'create flag')
  const point = await head(server)
  expectOk(await enableFeature(server, P, F, 'production'), 'enable production')
  expectOk(await api(server, 'PUT', `/api/admin/projects/${P}/environments/production/change-requests/config`, { changeRequestsEnabled: true, requiredApprovals: 1 }), 'require change requests')
  const editor = await createPerson(server, { username: 'editor', rootRole: 'Editor' })

  const refused = await callAs(server, editor.session, 'POST', `${flagPath}/revert`, { toEventId: point })
  expectError(t, refused, { status: 403, name: 'PermissionError' })
  t.same(refused.body.permissions, ['SKIP_CHANGE_REQUEST'])
  t.equal(expectOk(await getFeature(server, P, F), 'get').body.environments.find((e: { name: string }) => e.name === 'production').enabled, true, 'nothing was changed')

  expectOk(await api(server, 'POST', `${flagPath}/revert`, { toEventId: point }), 'the admin token may skip them')
  t.equal(expectOk(await getFeature(server, P, F), 'get').body.environments.find((e: { name: string }) => e.name === 'production').enabled, false)
})

import t from 'tap'
import { api, createApiToken, createFeature, createProject, expectOk, getFeature, getProject, listEvents, listFeatures, listProjects } from '../helpers/admin-api.js'
import { favoriteFeature, favoriteProject, getProjectOverview, unfavoriteFeature, unfavoriteProject } from '../helpers/curation-api.js'
import { expectError } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

const server = await startTestServer(t)
const P = 'fav'
expectOk(await createProject(server, { id: P, name: 'Fav' }), 'create project')
expectOk(await createFeature(server, P, 'star'), 'create flag')

// A second caller: another admin token (favorites of token callers are kept by token name).
const other = await createApiToken(server, { tokenName: 'other-admin', type: 'admin' })
const otherToken: string | undefined = other.status === 201 ? other.body.secret : undefined

t.test('favoriting a flag: 200, per caller, shown in the admin flag shapes', async (t) => {
  t.equal((await favoriteFeature(server, P, 'star')).status, 200)
  t.equal((await getFeature(server, P, 'star')).body.favorite, true)
  t.equal((await listFeatures(server, P)).body.features.find((f: { name: string }) => f.name === 'star').favorite, true)
  t.equal((await api(server, 'GET', '/api/admin/features')).body.features.find((f: { name: string }) => f.name === 'star').favorite, true)
  if (otherToken) t.equal((await api(server, 'GET', `/api/admin/projects/${P}/features/star`, undefined, otherToken)).body.favorite, false, 'another caller: not a favorite')
  t.equal((await favoriteFeature(server, P, 'star')).status, 200, 'again: still 200')
  t.equal((await unfavoriteFeature(server, P, 'star')).status, 200)
  t.equal((await getFeature(server, P, 'star')).body.favorite, false)
  const types = (await listEvents(server, P)).body.events.map((e: { type: string }) => e.type)
  t.equal(types.filter((type: string) => type === 'feature-favorited').length, 1, 'one event per change')
  t.ok(types.includes('feature-unfavorited'))
  expectError(t, await favoriteFeature(server, P, 'ghost'), { status: 404 })
})

t.test('favoriting a project: 200, shown in the project list, the project and its overview', async (t) => {
  t.equal((await favoriteProject(server, P)).status, 200)
  t.equal((await listProjects(server)).body.projects.find((p: { id: string }) => p.id === P).favorite, true)
  t.equal((await getProject(server, P)).body.favorite, true)
  t.equal((await getProjectOverview(server, P)).body.favorite, true)
  if (otherToken) t.equal((await getProjectOverview(server, P, otherToken)).body.favorite, false, 'another caller: not a favorite')
  t.equal((await unfavoriteProject(server, P)).status, 200)
  t.equal((await getProjectOverview(server, P)).body.favorite, false)
  const types = (await listEvents(server, P)).body.events.map((e: { type: string }) => e.type)
  t.ok(types.includes('project-favorited'))
  t.ok(types.includes('project-unfavorited'))
  expectError(t, await favoriteProject(server, 'ghost'), { status: 404 })
})

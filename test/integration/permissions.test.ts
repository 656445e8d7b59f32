import t, { type Test } from 'tap'
import { api, type ApiResult } from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import {
  callAs,
  createPat,
  createPerson,
  grantProjectRoles,
  isoInDays,
  patCaller,
  permissionMessage,
  startPeopleServer,
  type Caller,
} from '../helpers/people.js'

// The permission walk (SEMANTICS 7.4, INTERFACE 5 and 7): every admin write of the route table,
// called as a Viewer, an Editor, an Admin and a project Member, with plausible paths. A refusal is
// 403 {id, name:'PermissionError', message, permissions} naming the permission (and the environment
// on environment routes), decided before the body is read.

const server = await startPeopleServer(t)
type RouteInfo = (typeof server.routes)[number]
const keyOf = (r: { method: string; path: string }) => `${r.method} ${r.path}`

const ok = async (res: Promise<ApiResult> | ApiResult, what: string): Promise<ApiResult> => {
  const r = await res
  if (r.status >= 300) throw new Error(`${what}: ${r.status} ${r.text.slice(0, 300)}`)
  return r
}
const asAdmin = (method: string, path: string, body?: unknown) => api(server, method, path, body)

// Everything a walk's paths point at; each walk that may write gets its own set.
interface Fixtures {
  label: string
  project: string
  flag: string
  parentFlag: string
  archivedFlag: string
  strategyId: string
  tagValue: string
  environment: string
  segmentId: number
  contextField: string
  tagType: string
  strategyType: string
  userId: number
  groupId: number
  roleId: number
  serviceAccountId: number
  serviceAccountTokenId: number
  apiTokenName: string
  apiTokenSecret: string
  signupSecret: string
  changeRequestId: number
  changeId: number
  // The walker's own spare PAT, for DELETE /api/admin/user/tokens/:id.
  spareTokenId: number
}

const makeFixtures = async (label: string, project: string): Promise<Omit<Fixtures, 'spareTokenId'>> => {
  if (project !== 'default') await ok(asAdmin('POST', '/api/admin/projects', { id: project, name: project }), `project ${project}`)
  const p = `/api/admin/projects/${project}`
  const flag = `${label}-flag`
  const parentFlag = `${label}-parent`
  const archivedFlag = `${label}-archived`
  for (const name of [flag, parentFlag, archivedFlag]) await ok(asAdmin('POST', `${p}/features`, { name }), `flag ${name}`)
  const strategy = await ok(asAdmin('POST', `${p}/features/${flag}/environments/development/strategies`, { name: 'default' }), 'strategy')
  await ok(asAdmin('POST', `${p}/features/${flag}/dependencies`, { feature: parentFlag }), 'dependency')
  await ok(asAdmin('DELETE', `${p}/features/${archivedFlag}`), 'archive')
  const tagValue = `${label}-tag`
  await ok(asAdmin('POST', `/api/admin/features/${flag}/tags`, { type: 'simple', value: tagValue }), 'tag')
  const environment = `${label}-env`
  await ok(asAdmin('POST', '/api/admin/environments', { name: environment, type: 'test' }), 'environment')
  const segment = await ok(asAdmin('POST', '/api/admin/segments', { name: `${label}-seg`, constraints: [] }), 'segment')
  const contextField = `${label}-ctx`
  await ok(asAdmin('POST', '/api/admin/context', { name: contextField }), 'context field')
  const tagType = `${label}-tt`
  await ok(asAdmin('POST', '/api/admin/tag-types', { name: tagType }), 'tag type')
  const strategyType = `${label}-st`
  await ok(asAdmin('POST', '/api/admin/strategies', { name: strategyType, parameters: [] }), 'strategy type')
  const user = await ok(asAdmin('POST', '/api/admin/user-admin', { username: `${label}-user`, rootRole: 3 }), 'user')
  const group = await ok(asAdmin('POST', '/api/admin/groups', { name: `${label}-group`, users: [{ user: { id: user.body.id } }] }), 'group')
  const role = await ok(asAdmin('POST', '/api/admin/roles', { name: `${label}-role`, type: 'custom', permissions: [{ name: 'UPDATE_FEATURE' }] }), 'role')
  const account = await ok(asAdmin('POST', '/api/admin/service-account', { username: `${label}-sa`, rootRole: 3 }), 'service account')
  const accountToken = await ok(asAdmin('POST', `/api/admin/service-account/${account.body.id}/token`, { description: 'walk', expiresAt: isoInDays(10) }), 'sa token')
  const apiToken = await ok(asAdmin('POST', '/api/admin/api-tokens', { tokenName: `${label}-api`, type: 'backend', environment: 'development', projects: [project] }), 'api token')
  const signup = await ok(asAdmin('POST', '/api/admin/invite-link/tokens', { name: `${label}-invite`, expiresAt: isoInDays(5) }), 'signup token')
  const cr = await ok(
    asAdmin('POST', `${p}/environments/development/change-requests`, { feature: flag, action: 'updateEnabled', payload: { enabled: true } }),
    'change request',
  )
  return {
    label,
    project,
    flag,
    parentFlag,
    archivedFlag,
    strategyId: strategy.body.id,
    tagValue,
    environment,
    segmentId: segment.body.id,
    contextField,
    tagType,
    strategyType,
    userId: user.body.id,
    groupId: group.body.id,
    roleId: role.body.id,
    serviceAccountId: account.body.id,
    serviceAccountTokenId: accountToken.body.id,
    apiTokenName: apiToken.body.tokenName,
    apiTokenSecret: apiToken.body.secret,
    signupSecret: signup.body.secret,
    changeRequestId: cr.body.id,
    changeId: cr.body.features[0].changes[0].id,
  }
}

// A plausible value for each path parameter; an unknown parameter fails the walk so new routes get one.
const valueFor = (name: string, before: string, fx: Fixtures): string => {
  switch (name) {
    case 'projectId':
      return fx.project
    case 'featureName':
      return before.startsWith('/api/admin/archive/') ? fx.archivedFlag : fx.flag
    case 'environment':
      return 'development'
    case 'strategyId':
      return fx.strategyId
    case 'parent':
      return fx.parentFlag
    case 'userId':
      return String(fx.userId)
    case 'groupId':
      return String(fx.groupId)
    case 'tokenId':
      return String(fx.serviceAccountTokenId)
    case 'changeId':
      return String(fx.changeId)
    case 'type':
      return 'simple'
    case 'splashId':
      return 'strategy-drag-tooltip'
    case 'value':
      return fx.tagValue
    case 'token':
      if (before.includes('/api-tokens/')) return fx.apiTokenSecret
      if (before.includes('/invite-link/')) return fx.signupSecret
      break
    case 'name':
      if (before.includes('/api-tokens/')) return fx.apiTokenName
      if (before.includes('/environments/')) return fx.environment
      if (before.includes('/strategies/')) return fx.strategyType
      if (before.includes('/context/')) return fx.contextField
      if (before.includes('/tag-types/')) return fx.tagType
      break
    case 'id':
      if (before.includes('/segments/')) return String(fx.segmentId)
      if (before.includes('/user-admin/')) return String(fx.userId)
      if (before.includes('/roles/')) return String(fx.roleId)
      if (before.includes('/groups/')) return String(fx.groupId)
      if (before.includes('/service-account/')) return String(fx.serviceAccountId)
      if (before.includes('/user/tokens/')) return String(fx.spareTokenId)
      if (before.includes('/change-requests/')) return String(fx.changeRequestId)
      if (before.includes('/feature-types/')) return 'release'
      break
  }
  throw new Error(`no plausible value for :${name} after ${before}`)
}

const fill = (path: string, fx: Fixtures) => path.replace(/:(\w+)/g, (_, name: string, offset: number) => encodeURIComponent(valueFor(name, path.slice(0, offset), fx)))

// Writes whose permission the handler checks (the project is the flag's, or the permission depends on
// the body): the permission they must name, and a body that gets them to the check.
interface HandlerCheck {
  permissions: string[]
  environment?: string
  body?: (fx: Fixtures) => unknown
}
const handlerChecked: Record<string, HandlerCheck> = {
  'POST /api/admin/archive/revive/:featureName': { permissions: ['UPDATE_FEATURE'] },
  'DELETE /api/admin/archive/:featureName': { permissions: ['DELETE_FEATURE'] },
  'POST /api/admin/features/:featureName/tags': { permissions: ['UPDATE_FEATURE'], body: () => ({ type: 'simple', value: 'walked' }) },
  'PUT /api/admin/features/:featureName/tags': {
    permissions: ['UPDATE_FEATURE'],
    body: () => ({ addedTags: [{ type: 'simple', value: 'walked-too' }], removedTags: [] }),
  },
  'DELETE /api/admin/features/:featureName/tags/:type/:value': { permissions: ['UPDATE_FEATURE'] },
  'POST /api/admin/projects/:projectId/environments/:environment/change-requests': {
    permissions: ['UPDATE_FEATURE_ENVIRONMENT'],
    environment: 'development',
    body: (fx) => ({ feature: fx.flag, action: 'updateEnabled', payload: { enabled: false } }),
  },
  'PUT /api/admin/projects/:projectId/change-requests/:id/state': {
    permissions: ['APPROVE_CHANGE_REQUEST'],
    environment: 'development',
    body: () => ({ state: 'Approved' }),
  },
  'PUT /api/admin/projects/:projectId/change-requests/:id/changes/:changeId': {
    permissions: ['UPDATE_FEATURE_ENVIRONMENT'],
    environment: 'development',
    body: () => ({ payload: { enabled: false } }),
  },
  'POST /api/admin/features-batch/import': {
    permissions: ['CREATE_FEATURE'],
    environment: 'development',
    body: (fx) => ({ project: fx.project, environment: 'development', data: { features: [] } }),
  },
}

// Writes on someone else's change request that only its author (or an admin) may make: refused to a
// caller without flag rights in the project with a 403 that names no permission (there is none to name).
// Whether an Editor may make them is not settled (SEMANTICS 12, 14): only "not a permission refusal" is asserted.
const authorOnly: Record<string, { reason: string; body?: () => unknown }> = {
  'DELETE /api/admin/projects/:projectId/change-requests/:id': { reason: 'only the author or an admin discards a change request (SEMANTICS 12)' },
  'PUT /api/admin/projects/:projectId/change-requests/:id/title': { reason: 'only the author edits the title', body: () => ({ title: 'walked' }) },
  'DELETE /api/admin/projects/:projectId/change-requests/:id/changes/:changeId': { reason: 'only the author discards a change' },
}

// Gaps the walk found outside the people code (src/domain/change-requests.ts has no author check for these
// steps, so a Viewer can make them): the assertion stays, marked TODO until that code is fixed.
const knownGaps: Record<string, string> = {}

// Writes no permission guards, and why.
const exempt: Record<string, string> = {
  'POST /api/admin/features/validate': 'validates a name; changes nothing (Unleash: no permission)',
  'POST /api/admin/playground': 'evaluates a context; a read (SEMANTICS 7.4: playground needs none)',
  'POST /api/admin/playground/advanced': 'evaluates contexts; a read, as the plain playground (Unleash: no permission)',
  'POST /api/admin/constraints/validate': 'validates a constraint; changes nothing (Unleash: no permission)',
  'POST /api/admin/splash/:splashId': "self-service: the hints the caller's own admin UI has shown (Unleash: no permission)",
  'POST /api/admin/record-ui-error': 'a crash report of the admin UI, logged; changes nothing (Unleash: no permission)',
  'POST /api/admin/user-admin/validate-password': 'checks password strength; changes nothing',
  'POST /api/admin/user/change-password': "self-service: the caller's own password",
  'POST /api/admin/user/tokens': "self-service: the caller's own PATs",
  'DELETE /api/admin/user/tokens/:id': "self-service: the caller's own PATs",
  'POST /api/admin/tag-types/validate': 'validates a tag type; changes nothing (Unleash: no permission)',
  'POST /api/admin/projects/:projectId/features/:featureName/favorites': 'favorites are per user (Unleash: no permission)',
  'DELETE /api/admin/projects/:projectId/features/:featureName/favorites': 'favorites are per user (Unleash: no permission)',
  'POST /api/admin/projects/:projectId/favorites': 'favorites are per user (Unleash: no permission)',
  'DELETE /api/admin/projects/:projectId/favorites': 'favorites are per user (Unleash: no permission)',
  'POST /api/admin/features-batch/export': 'a read of flag configuration (Unleash: no permission)',
  'POST /api/admin/features-batch/validate': 'a dry run that reports missing permissions in its reply',
  'POST /api/admin/projects/:projectId/change-requests/:id/comments': 'any user may comment on a change request; a comment changes no flag',
}

// Unleash's project Member role: the flag writes of a project.
const memberPermissions = new Set([
  'CREATE_FEATURE', 'UPDATE_FEATURE', 'DELETE_FEATURE', 'CREATE_FEATURE_STRATEGY', 'UPDATE_FEATURE_STRATEGY', 'DELETE_FEATURE_STRATEGY',
  'UPDATE_FEATURE_ENVIRONMENT', 'UPDATE_FEATURE_ENVIRONMENT_VARIANTS', 'UPDATE_FEATURE_VARIANTS', 'UPDATE_FEATURE_DEPENDENCY',
])

type Rule =
  | { kind: 'permission'; permissions: string[]; environment?: string; projectScoped: boolean; body?: HandlerCheck['body'] }
  | { kind: 'author'; reason: string; body?: () => unknown }
  | { kind: 'exempt'; reason: string }

const ruleOf = (route: RouteInfo): Rule => {
  const key = keyOf(route)
  if (route.permission) {
    const permissions = Array.isArray(route.permission) ? route.permission : [route.permission]
    return { kind: 'permission', permissions, environment: route.path.includes(':environment') ? 'development' : undefined, projectScoped: route.path.includes(':projectId') }
  }
  const check = handlerChecked[key]
  if (check) return { kind: 'permission', permissions: check.permissions, environment: check.environment, projectScoped: true, body: check.body }
  const author = authorOnly[key]
  if (author) return { kind: 'author', ...author }
  const reason = exempt[key]
  if (reason) return { kind: 'exempt', reason }
  throw new Error(`${key} declares no permission and is not classified: add it to handlerChecked, authorOnly or exempt`)
}

// Admin writes, DELETEs last so that the walk does not remove what later routes point at; deleting the
// project is the very last.
const writes = server.routes
  .filter((r) => r.access === 'admin' && r.method !== 'GET')
  .sort((a, b) => {
    const rank = (r: RouteInfo) => (r.method !== 'DELETE' ? 0 : r.path === '/api/admin/projects/:projectId' ? 2 : 1)
    return rank(a) - rank(b)
  })

// Made before the first test: tap ends the root test as soon as its queue of tests runs empty.
const defaultFx = await makeFixtures('vw', 'default')

t.test('every admin write of the route table is classified', async (t) => {
  t.ok(writes.length > 80, `${writes.length} admin writes`)
  for (const route of writes) t.doesNotThrow(() => ruleOf(route), keyOf(route))
  for (const key of [...Object.keys(handlerChecked), ...Object.keys(authorOnly), ...Object.keys(exempt)]) {
    t.ok(writes.some((r) => keyOf(r) === key), `${key} is in the route table`)
  }
})

const bodyFor = (rule: Rule, fx: Fixtures) => ('body' in rule && rule.body ? rule.body(fx) : {})
const call = (caller: Caller, route: RouteInfo, fx: Fixtures) => {
  const rule = ruleOf(route)
  return callAs(server, caller, route.method, fill(route.path, fx), bodyFor(rule, fx))
}

const expectPermissionRefusal = (t: Test, res: ApiResult, permissions: string[], environment: string | undefined, what: string) => {
  const message = permissionMessage(permissions, environment)
  expectError(t, res, { status: 403, name: 'PermissionError', message }, what)
  t.same(res.body?.permissions, permissions, `${what}: lists the permissions`)
  t.same(res.body?.details, [{ message }], `${what}: details carry the message`)
}

const expectNoPermissionRefusal = (t: Test, res: ApiResult, what: string) => {
  const refused = res.status === 403 && res.body?.name === 'PermissionError'
  t.notOk(refused, refused ? `${what}: refused ${res.text.slice(0, 300)}` : `${what}: not refused for permissions (${res.status})`)
  t.not(res.status, 401, `${what}: authenticated`)
  t.ok(res.status < 500, `${what}: no server error (${res.status})`)
}

// Business-rule 403s (InvalidOperationError and the like) an allowed caller may still meet.
const businessRefusals: string[] = []

const walk = async (
  t: Test,
  caller: Caller,
  fx: Fixtures,
  allowed: (rule: Extract<Rule, { kind: 'permission' }>) => boolean,
  options: { authorOnlyRefused?: boolean } = {},
): Promise<{ allowed: number; refused: number }> => {
  const counts = { allowed: 0, refused: 0 }
  for (const route of writes) {
    const rule = ruleOf(route)
    const label = `${caller.label}: ${keyOf(route)}`
    const res = await call(caller, route, fx)
    if (rule.kind === 'exempt') {
      t.ok(res.status < 500 && res.status !== 401, `${label}: exempt (${rule.reason}); answered ${res.status}`)
      continue
    }
    if (rule.kind === 'author') {
      if (!options.authorOnlyRefused) expectNoPermissionRefusal(t, res, label)
      else {
        const gap = knownGaps[keyOf(route)]
        t.equal(res.status, 403, `${label}: refused, ${rule.reason} (${res.status} ${res.text.slice(0, 120)})`, gap ? { todo: gap } : {})
        if (res.status === 403) t.type(res.body?.message, 'string', `${label}: with a message`)
      }
      continue
    }
    if (allowed(rule)) {
      counts.allowed++
      expectNoPermissionRefusal(t, res, label)
      if (res.status === 403) businessRefusals.push(`${label}: ${res.body?.name} ${res.body?.message}`)
    } else {
      counts.refused++
      expectPermissionRefusal(t, res, rule.permissions, rule.environment, label)
    }
  }
  return counts
}

const spare = async (caller: Caller) => (await createPat(server, caller, `spare-${caller.label}-${Math.random().toString(36).slice(2, 8)}`)).id

t.test('a Viewer is refused every admin write, naming the permission', async (t) => {
  const viewer = await createPerson(server, { username: 'walk-viewer', rootRole: 'Viewer' })
  const fx = { ...defaultFx, spareTokenId: await spare(viewer.session) }
  t.test('with a session', async (t) => {
    const counts = await walk(t, viewer.session, fx, () => false, { authorOnlyRefused: true })
    t.ok(counts.refused >= 80, `${counts.refused} writes refused naming their permission`)
  })
  t.test('with a PAT', async (t) => {
    const pat = await createPat(server, viewer.session, 'walk')
    const caller = patCaller('walk-viewer PAT', pat.secret)
    // Fresh fixtures: a gap above may have let the session walk change the change request.
    const own = await makeFixtures('vp', 'default')
    await walk(t, caller, { ...own, spareTokenId: await spare(caller) }, () => false, { authorOnlyRefused: true })
    expectStatus(t, await callAs(server, caller, 'GET', '/api/admin/user'), 200, 'the walking PAT still works: deleting a spare did not hit it')
  })
  t.test('and nothing changed', async (t) => {
    const flag = await asAdmin('GET', `/api/admin/projects/default/features/${fx.flag}`)
    t.equal(flag.status, 200, 'the flag is there')
    t.notOk(flag.body.archived, 'not archived')
    t.equal((await asAdmin('GET', `/api/admin/user-admin/${fx.userId}`)).status, 200, 'the user is there')
    t.equal((await asAdmin('GET', `/api/admin/groups/${fx.groupId}`)).status, 200, 'the group is there')
    const tags = await asAdmin('GET', `/api/admin/features/${fx.flag}/tags`)
    t.same(tags.body.tags.map((tag: { value: string }) => tag.value), [fx.tagValue], 'the tags are as they were')
  })
})

t.test('reads that need ADMIN are refused to a Viewer as well', async (t) => {
  const viewer = await createPerson(server, { username: 'read-viewer', rootRole: 'Viewer' })
  const fx = { ...defaultFx, spareTokenId: 1 }
  const guardedReads = server.routes.filter((r) => r.access === 'admin' && r.method === 'GET' && r.permission)
  t.ok(guardedReads.length >= 5, `${guardedReads.length} guarded reads`)
  for (const route of guardedReads) {
    const permissions = Array.isArray(route.permission) ? route.permission : [route.permission!]
    const res = await callAs(server, viewer.session, 'GET', fill(route.path, fx))
    expectPermissionRefusal(t, res, permissions, route.path.includes(':environment') ? 'development' : undefined, `GET ${route.path}`)
  }
  for (const path of ['/api/admin/projects', `/api/admin/projects/default/features/${fx.flag}`, '/api/admin/roles', '/api/admin/user']) {
    t.equal((await callAs(server, viewer.session, 'GET', path)).status, 200, `a viewer reads ${path}`)
  }
})

t.test('a project Member (root Viewer) writes flags in p1 only', async (t) => {
  const p1 = await makeFixtures('mb', 'p1')
  const member = await createPerson(server, { username: 'walk-member', rootRole: 'Viewer' })
  await grantProjectRoles(server, 'p1', [5], [member.id])
  const spareId = await spare(member.session)
  const isMemberWrite = (rule: Extract<Rule, { kind: 'permission' }>) => rule.projectScoped && rule.permissions.some((p) => memberPermissions.has(p))
  const inDefault = await makeFixtures('md', 'default')
  t.test('in default: refused everywhere', async (t) => {
    await walk(t, member.session, { ...inDefault, spareTokenId: spareId }, () => false, { authorOnlyRefused: true })
  })
  t.test('in p1: flag writes allowed, the rest refused', async (t) => {
    const counts = await walk(t, member.session, { ...p1, spareTokenId: spareId }, isMemberWrite)
    t.ok(counts.allowed >= 25, `${counts.allowed} flag writes allowed`)
    t.ok(counts.refused >= 40, `${counts.refused} other writes refused`)
  })
  t.test('a flag write in p1 really happens', async (t) => {
    const res = await callAs(server, member.session, 'POST', '/api/admin/projects/p1/features', { name: 'member-made' })
    t.equal(res.status, 201, 'created')
    const events = await asAdmin('GET', '/api/admin/events?project=p1')
    const event = events.body.events.find((e: { type: string; featureName: string }) => e.type === 'feature-created' && e.featureName === 'member-made')
    t.equal(event?.createdBy, member.email, 'recorded as the member')
    t.equal(event?.createdByUserId, member.id)
  })
})

t.test('an Editor is refused only the ADMIN routes', async (t) => {
  const fx = await makeFixtures('ed', 'walk-editor')
  const editor = await createPerson(server, { username: 'walk-editor', rootRole: 'Editor' })
  const pat = await createPat(server, editor.session, 'walk')
  const caller = patCaller('walk-editor PAT', pat.secret)
  const counts = await walk(t, caller, { ...fx, spareTokenId: await spare(caller) }, (rule) => !rule.permissions.includes('ADMIN'))
  const adminRoutes = writes.filter((r) => r.permission === 'ADMIN' || (Array.isArray(r.permission) && r.permission.includes('ADMIN'))).length
  t.equal(counts.refused, adminRoutes, `refused exactly the ${adminRoutes} ADMIN routes`)
  t.ok(counts.allowed >= 60, `${counts.allowed} allowed`)
})

t.test('an Admin is never refused for permissions', async (t) => {
  const fx = await makeFixtures('ad', 'walk-admin')
  const adminUser = await createPerson(server, { username: 'walk-admin', rootRole: 'Admin' })
  const counts = await walk(t, adminUser.session, { ...fx, spareTokenId: await spare(adminUser.session) }, () => true)
  t.equal(counts.refused, 0, 'nothing refused')
  t.comment(`business-rule 403s met by allowed callers:\n${businessRefusals.join('\n')}`)
})

t.test('the refusal comes before the body is read', async (t) => {
  const viewer = await createPerson(server, { username: 'body-viewer', rootRole: 'Viewer' })
  const bad = await callAs(server, viewer.session, 'POST', '/api/admin/projects/default/features', 'this is not json')
  expectPermissionRefusal(t, bad, ['CREATE_FEATURE'], undefined, 'a body that is not JSON')
  const wrong = await callAs(server, viewer.session, 'POST', '/api/admin/projects/default/features/vw-flag/environments/production/strategies', { nonsense: true })
  expectPermissionRefusal(t, wrong, ['CREATE_FEATURE_STRATEGY'], 'production', 'an invalid body on an environment route names that environment')
})

import t from 'tap'
import {
  addProjectEnvironment,
  api,
  clientToken,
  createEnabledFeature,
  createEnvironment,
  createFeature,
  createProject,
  expectOk,
  getClientFeature,
  listEvents,
} from '../helpers/admin-api.js'
import { expectError, expectStatus } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

// Environment variants (INTERFACE 4.11–4.13, SEMANTICS 3.4–3.5).
const server = await startTestServer(t)
const P = 'var'
expectOk(await createProject(server, { id: P, name: 'Variants' }), 'create project')
const token = await clientToken(server, [P])

const featurePath = (f: string) => `/api/admin/projects/${P}/features/${f}`
const envVariants = (f: string, env = 'development') => `${featurePath(f)}/environments/${env}/variants`
const getVariants = async (f: string, env = 'development') => (await api(server, 'GET', envVariants(f, env))).body.variants as any[]
const v = (name: string, extra: Record<string, unknown> = {}) => ({ name, weight: 0, weightType: 'variable', stickiness: 'default', ...extra })
const weights = (variants: any[]) => Object.fromEntries(variants.map((x) => [x.name, x.weight]))

t.test('PUT distributes the remainder in input order and returns the list sorted by name', async (t) => {
  expectOk(await createFeature(server, P, 'var-three'), 'flag')
  const empty = await api(server, 'GET', envVariants('var-three'))
  expectStatus(t, empty, 200, 'GET')
  t.same(empty.body, { version: 1, variants: [] }, 'no variants yet')

  const res = await api(server, 'PUT', envVariants('var-three'), [v('c'), v('a'), v('b')])
  expectStatus(t, res, 200, 'PUT')
  t.equal(res.body.version, 1, 'version 1')
  t.same(res.body.variants.map((x: any) => x.name), ['a', 'b', 'c'], 'sorted by name')
  t.same(weights(res.body.variants), { c: 334, a: 333, b: 333 }, 'the first variable variant in input order gets the remainder')
  for (const x of res.body.variants) t.match(x, { weightType: 'variable', stickiness: 'default' })
  t.same(await getVariants('var-three'), res.body.variants, 'stored as returned')

  const reordered = await api(server, 'PUT', envVariants('var-three'), [v('b'), v('c'), v('a')])
  t.same(weights(reordered.body.variants), { b: 334, c: 333, a: 333 }, 'a different input order moves the remainder')

  const withFix = await api(server, 'PUT', envVariants('var-three'), [
    v('x', { weight: 100, weightType: 'fix', payload: { type: 'json', value: '{"k":1}' } }),
    v('z'),
    v('y'),
    v('w', { weight: 0, weightType: 'fix' }),
  ])
  expectStatus(t, withFix, 200, 'fix and variable')
  t.same(weights(withFix.body.variants), { w: 0, x: 100, z: 450, y: 450 }, 'fix weights kept, the rest shared')
  t.same(withFix.body.variants.map((x: any) => x.name), ['w', 'x', 'y', 'z'])
  t.match(withFix.body.variants.find((x: any) => x.name === 'x'), { weightType: 'fix', payload: { type: 'json', value: '{"k":1}' } })

  const seven = await api(server, 'PUT', envVariants('var-three'), [v('v1', { weight: 1, weightType: 'fix' }), ...['g', 'f', 'e', 'd'].map((n) => v(n))])
  t.same(weights(seven.body.variants), { v1: 1, g: 250, f: 250, e: 250, d: 249 }, '999 over 4: remainder 3 to the first three')

  const defaults = await api(server, 'PUT', envVariants('var-three'), [{ name: 'only', weight: 0 }])
  expectStatus(t, defaults, 200, 'weightType and stickiness defaulted')
  t.match(defaults.body.variants, [{ name: 'only', weight: 1000, weightType: 'variable', stickiness: 'default' }])

  const overrides = await api(server, 'PUT', envVariants('var-three'), [v('o', { overrides: [{ contextName: 'userId', values: ['alice'] }] }), v('p')])
  t.match(overrides.body.variants, [{ name: 'o', overrides: [{ contextName: 'userId', values: ['alice'] }] }, { name: 'p' }], 'overrides kept')

  const cleared = await api(server, 'PUT', envVariants('var-three'), [])
  t.same(cleared.body, { version: 1, variants: [] }, 'an empty list clears')
})

t.test('PUT validation: each rule gives a 400 naming it, and nothing changes', async (t) => {
  expectOk(await createFeature(server, P, 'var-rules'), 'flag')
  const kept = expectOk(await api(server, 'PUT', envVariants('var-rules'), [v('keep')]), 'initial').body.variants
  const cases: [string, unknown, RegExp][] = [
    ['no variable variant', [v('a', { weight: 500, weightType: 'fix' }), v('b', { weight: 100, weightType: 'fix' })], /There must be at least one "variable" variant/],
    ['fix weights adding up to more than 1000', [v('a', { weight: 600, weightType: 'fix' }), v('b', { weight: 600, weightType: 'fix' }), v('c')], /The traffic distribution total must equal 100%/],
    ['duplicate names', [v('same'), v('same')], /unique/],
    ['weight above 1000', [v('a', { weight: 1001 })], /weight/],
    ['negative weight', [v('a', { weight: -1 })], /weight/],
    ['fractional weight', [v('a', { weight: 1.5 })], /weight/],
    ['weight missing', [{ name: 'a', weightType: 'variable' }], /weight/],
    ['unknown weightType', [v('a', { weightType: 'half' })], /weightType/],
    ['invalid json payload', [v('a', { payload: { type: 'json', value: '{not json' } })], /'value' must be a valid json string when 'type' is json/],
    ['unknown payload type', [v('a', { payload: { type: 'xml', value: '<a/>' } })], /type/],
    ['name not URL friendly', [v('has space')], /name/],
    ['missing name', [{ weight: 0 }], /name/],
    ['not an array', { name: 'a', weight: 0 }, /array/],
  ]
  for (const [what, body, message] of cases) {
    expectError(t, await api(server, 'PUT', envVariants('var-rules'), body), { status: 400, message }, what)
  }
  t.same(await getVariants('var-rules'), kept, 'the stored variants are unchanged')
  expectError(t, await api(server, 'PUT', envVariants('var-rules', 'no-env'), [v('a')]), {}, 'an unknown environment')
  expectError(t, await api(server, 'PUT', envVariants('no-such-flag'), [v('a')]), { status: 404 }, 'an unknown flag')
})

t.test('a fix sum of 1000 or more leaves nothing for the variable variants', async (t) => {
  expectOk(await createFeature(server, P, 'var-full'), 'flag')
  expectError(
    t,
    await api(server, 'PUT', envVariants('var-full'), [v('a', { weight: 1000, weightType: 'fix' }), v('b')]),
    { status: 400, message: /The traffic distribution total must equal 100%/ },
    'fix sum 1000 (INTERFACE 4.11: strictly below 1000)',
  )
  const justBelow = await api(server, 'PUT', envVariants('var-full'), [v('a', { weight: 999, weightType: 'fix' }), v('b')])
  expectStatus(t, justBelow, 200, 'fix sum 999')
  t.same(weights(justBelow.body.variants), { a: 999, b: 1 })
})

t.test('PATCH applies a JSON patch to the current list', async (t) => {
  expectOk(await createFeature(server, P, 'var-patch'), 'flag')
  expectOk(await api(server, 'PUT', envVariants('var-patch'), [v('a'), v('b')]), 'initial')
  const added = await api(server, 'PATCH', envVariants('var-patch'), [{ op: 'add', path: '/-', value: v('c') }])
  expectStatus(t, added, 200, 'add')
  t.same(weights(added.body.variants), { a: 334, b: 333, c: 333 }, 'renormalised')
  t.equal(added.body.version, 1)
  const replaced = await api(server, 'PATCH', envVariants('var-patch'), [{ op: 'replace', path: '/0/weight', value: 100 }, { op: 'replace', path: '/0/weightType', value: 'fix' }])
  expectStatus(t, replaced, 200, 'replace')
  t.same(weights(replaced.body.variants), { a: 100, b: 450, c: 450 })
  const before = await getVariants('var-patch')

  const failing: [string, unknown, RegExp][] = [
    ['remove beyond the end', [{ op: 'remove', path: '/10' }], /Could not apply provided patch/],
    ['a failing test op', [{ op: 'test', path: '/0/name', value: 'zzz' }], /Could not apply provided patch/],
    ['an unknown op', [{ op: 'frobnicate', path: '/0' }], /op/],
    ['not an array', { op: 'add' }, /./],
    ['a patch leaving only fix variants', [{ op: 'replace', path: '/1/weightType', value: 'fix' }, { op: 'replace', path: '/2/weightType', value: 'fix' }], /There must be at least one "variable" variant/],
    ['a patch leaving a broken payload', [{ op: 'add', path: '/1/payload', value: { type: 'json', value: '{' } }], /valid json/],
  ]
  for (const [what, body, message] of failing) {
    expectError(t, await api(server, 'PATCH', envVariants('var-patch'), body), { status: 400, message }, what)
  }
  t.same(await getVariants('var-patch'), before, 'nothing changed')
})

t.test('variants-batch echoes the input with defaults and writes every environment', async (t) => {
  expectOk(await createFeature(server, P, 'var-batch'), 'flag')
  const body = { variants: [{ name: 'blue', weight: 0 }, { name: 'red', weight: 200, weightType: 'fix', stickiness: 'userId' }], environments: ['development', 'production'] }
  const res = await api(server, 'PUT', `${featurePath('var-batch')}/variants-batch`, body)
  expectStatus(t, res, 200, 'batch')
  t.same(res.body, {
    version: 1,
    variants: [
      { name: 'blue', weight: 0, weightType: 'variable', stickiness: 'default' },
      { name: 'red', weight: 200, weightType: 'fix', stickiness: 'userId' },
    ],
  }, 'the input echoed with defaults, not the normalised weights')
  for (const env of ['development', 'production']) {
    t.same(weights(await getVariants('var-batch', env)), { blue: 800, red: 200 }, `${env} holds the normalised list`)
  }
  const events = ((await listEvents(server)).body.events as any[]).filter((e) => e.type === 'feature-environment-variants-updated' && e.featureName === 'var-batch')
  t.same(events.map((e) => e.environment).sort(), ['development', 'production'], 'one event per environment')
  expectError(t, await api(server, 'PUT', `${featurePath('var-batch')}/variants-batch`, { variants: [v('a')], environments: [] }), { status: 400, message: /No environments provided/ }, 'no environments')
  expectError(t, await api(server, 'PUT', `${featurePath('var-batch')}/variants-batch`, { variants: [v('a', { weight: 5000 })], environments: ['development'] }), { status: 400, message: /weight/ }, 'bad weight')
  expectError(t, await api(server, 'PUT', `${featurePath('var-batch')}/variants-batch`, { variants: [v('a', { weightType: 'fix', weight: 10 })], environments: ['development'] }), { status: 400, message: /variable/ }, 'no variable variant')
  expectError(t, await api(server, 'PUT', `${featurePath('var-batch')}/variants-batch`, { environments: ['development'] }), { status: 400, message: /variants/ }, 'variants missing')
  t.same(weights(await getVariants('var-batch', 'development')), { blue: 800, red: 200 }, 'unchanged after refusals')
})

t.test('GET flag variants reads the first production-type environment', async (t) => {
  expectOk(await createFeature(server, P, 'var-legacy'), 'flag')
  expectOk(await api(server, 'PUT', envVariants('var-legacy', 'development'), [v('dev-only')]), 'dev')
  expectOk(await api(server, 'PUT', envVariants('var-legacy', 'production'), [v('prod-a'), v('prod-b')]), 'prod')
  const res = await api(server, 'GET', `${featurePath('var-legacy')}/variants`)
  expectStatus(t, res, 200, 'GET')
  t.equal(res.body.version, 1)
  t.same(res.body.variants.map((x: any) => x.name), ['prod-a', 'prod-b'], 'from production')

  expectOk(await createEnvironment(server, { name: 'a-live', type: 'production' }), 'a second production-type env')
  expectOk(await addProjectEnvironment(server, P, 'a-live'), 'in the project')
  expectOk(await api(server, 'PUT', envVariants('var-legacy', 'a-live'), [v('live-only')]), 'a-live variants')
  const again = await api(server, 'GET', `${featurePath('var-legacy')}/variants`)
  t.same(again.body.variants.map((x: any) => x.name), ['live-only'], 'the first production-type environment by name')
  expectError(t, await api(server, 'GET', `${featurePath('no-such-flag')}/variants`), { status: 404 }, 'unknown flag')
})

t.test('feature-environment-variants-updated events and the client API', async (t) => {
  await createEnabledFeature(server, P, 'var-client')
  expectOk(await api(server, 'PUT', envVariants('var-client'), [v('one')]), 'first')
  expectOk(await api(server, 'PUT', envVariants('var-client'), [v('one'), v('two', { payload: { type: 'string', value: 'hello' } })]), 'second')
  const events = ((await listEvents(server)).body.events as any[]).filter((e) => e.type === 'feature-environment-variants-updated' && e.featureName === 'var-client')
  t.equal(events.length, 2, 'one event per change')
  t.match(events[0], {
    project: P,
    environment: 'development',
    featureName: 'var-client',
    data: { variants: [{ name: 'one', weight: 500 }, { name: 'two', weight: 500 }] },
    preData: { variants: [{ name: 'one', weight: 1000 }] },
  }, 'new and old variants')
  expectOk(await api(server, 'PUT', envVariants('var-client'), [v('one'), v('two', { payload: { type: 'string', value: 'hello' } })]), 'same again')
  const after = ((await listEvents(server)).body.events as any[]).filter((e) => e.type === 'feature-environment-variants-updated' && e.featureName === 'var-client')
  t.equal(after.length, 2, 'no event for an unchanged list')

  const client = await getClientFeature(server, token, 'var-client')
  expectStatus(t, client, 200, 'client flag')
  t.match(client.body.variants, [
    { name: 'one', weight: 500, weightType: 'variable', stickiness: 'default' },
    { name: 'two', weight: 500, payload: { type: 'string', value: 'hello' } },
  ], 'the client API serves the stored variants')
})

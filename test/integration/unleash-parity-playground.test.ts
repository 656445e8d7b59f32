import t from 'tap'
import { addStrategy, api, createFeature, enableFeature, expectOk } from '../helpers/admin-api.js'
import { expectStatus } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'

// The playground (issue 24, part 2). The same flag and contexts were sent to Unleash 8.2 side by side;
// every expectation here is what Unleash answered (Unleash is not needed to run it). The only difference
// left is that our stored constraints carry caseInsensitive: false where Unleash's omit it.
const server = await startTestServer(t)
const P = 'default'
const F = 'parity-pg'

expectOk(await api(server, 'POST', '/api/admin/strategies', { name: 'parity-custom', parameters: [] }), 'custom strategy type')
expectOk(await createFeature(server, P, F), 'flag')
const add = (strategy: Record<string, unknown>) => addStrategy(server, P, F, 'development', strategy)
expectOk(await add({ name: 'applicationHostname', parameters: { hostNames: 'localhost' } }), 'applicationHostname')
expectOk(
  await add({
    name: 'flexibleRollout',
    parameters: { rollout: '100', stickiness: 'userId' },
    constraints: [{ contextName: 'userId', operator: 'IN', values: ['1'] }],
    variants: [{ name: 'va', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'string', value: 'x' } }],
  }),
  'flexibleRollout with a variant',
)
expectOk(await add({ name: 'remoteAddress', parameters: { IPs: '10.0.0.1' } }), 'remoteAddress')
expectOk(await add({ name: 'parity-custom', constraints: [{ contextName: 'userId', operator: 'IN', values: ['9'] }] }), 'custom')
expectOk(await add({ name: 'default', disabled: true }), 'disabled')
expectOk(await enableFeature(server, P, F, 'development'), 'on')

const explain = async (context: Record<string, string>) => {
  const res = await api(server, 'POST', '/api/admin/playground', { environment: 'development', projects: [P], context: { appName: 'a', ...context } })
  expectStatus(t, res, 200, 'playground')
  return res.body.features.find((f: { name: string }) => f.name === F)
}

const variantVa = { name: 'va', enabled: true, payload: { type: 'string', value: 'x' } }
const definitionsVa = [{ name: 'va', weight: 1000, payload: { type: 'string', value: 'x' }, stickiness: 'default', weightType: 'variable' }]
const hostname = { enabled: 'unknown', evaluationStatus: 'incomplete' }
const disabled = { enabled: 'unknown', evaluationStatus: 'unevaluated' }
const rollout = (enabled: boolean) => ({ enabled, evaluationStatus: 'complete', variant: variantVa, variants: definitionsVa })
const remote = (enabled: boolean) => ({ enabled, evaluationStatus: 'complete' })
const custom = (enabled: false | 'unknown') => ({ enabled, evaluationStatus: 'incomplete' })

const cases: [string, Record<string, string>, Record<string, unknown>][] = [
  [
    'no user: applicationHostname is unknown, so the flag is',
    {},
    { isEnabled: false, strategies: { result: 'unknown' }, variant: { name: 'disabled', enabled: false, feature_enabled: false }, variants: [], results: [hostname, rollout(false), remote(false), custom(false), disabled] },
  ],
  [
    'user 1: the rollout wins with its variant',
    { userId: '1' },
    { isEnabled: true, strategies: { result: true }, variant: { ...variantVa, feature_enabled: true }, variants: definitionsVa, results: [hostname, rollout(true), remote(false), custom(false), disabled] },
  ],
  [
    'user 9 from 10.0.0.1: remoteAddress wins, no variant',
    { userId: '9', remoteAddress: '10.0.0.1' },
    {
      isEnabled: true,
      strategies: { result: true },
      variant: { name: 'disabled', enabled: false, feature_enabled: true, featureEnabled: true },
      variants: [],
      results: [hostname, rollout(false), remote(true), custom('unknown'), disabled],
    },
  ],
  [
    'user 9 elsewhere: the custom strategy passes its constraints and is unknown',
    { userId: '9' },
    { isEnabled: false, strategies: { result: 'unknown' }, variant: { name: 'disabled', enabled: false, feature_enabled: false }, variants: [], results: [hostname, rollout(false), remote(false), custom('unknown'), disabled] },
  ],
]

for (const [name, context, expected] of cases) {
  t.test(name, async (t) => {
    const feature = await explain(context)
    const { results, ...fields } = expected
    t.match(feature, { ...fields, isEnabledInCurrentEnvironment: true, hasUnsatisfiedDependency: false })
    t.same(feature.variant, expected.variant, 'the variant exactly')
    t.same(feature.variants, expected.variants, 'the variants exactly')
    t.same(
      feature.strategies.data.map((s: { result: unknown }) => s.result),
      results,
      'each strategy result exactly',
    )
  })
}

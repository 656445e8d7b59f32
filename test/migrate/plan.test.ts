import t from 'tap'
import type { CommandMeta } from '../../src/domain/events.js'
import { planMigration, type Step } from '../../src/migrate/plan.js'
import type { SourceData, SourceFlag } from '../../src/migrate/unleash-source.js'

const meta: CommandMeta = { now: '2026-01-01T00:00:00.000Z', actor: { name: 'migration', userId: -1337 } }
const start = {
  strategyTypes: new Set(['default', 'flexibleRollout']),
  contextFields: new Set(['userId']),
  tagTypes: new Set(['simple']),
  featureTypeLifetimes: new Map<string, number | null>([['release', 40], ['kill-switch', null]]),
}
let ids = 0
const options = { meta, start, random: () => 'r', newId: () => `new-${++ids}` }

const flag = (name: string, extra: Partial<SourceFlag> = {}): SourceFlag => ({
  name,
  project: 'web',
  type: 'release',
  description: null,
  impressionData: false,
  environments: [],
  tags: [],
  ...extra,
})

const source = (extra: Partial<SourceData> = {}): SourceData => ({
  url: 'https://unleash.example.com',
  version: '8.2.0',
  environments: [
    { name: 'production', type: 'production', enabled: true, sortOrder: 3 },
    { name: 'development', type: 'development', enabled: false, sortOrder: 2 },
  ],
  projects: [{ id: 'web', name: 'Web', description: 'the site', mode: 'open', defaultStickiness: 'userId', featureLimit: null, environments: ['development', 'production'] }],
  contextFields: [
    { name: 'userId', description: 'the user', stickiness: false, sortOrder: 1, legalValues: [] },
    { name: 'country', description: null, stickiness: true, sortOrder: 5, legalValues: [{ value: 'no', description: 'Norway' }, { value: 'se' }], createdAt: 'x', usedInFeatures: 3 },
  ],
  segments: [{ id: 9, name: 'nordics', description: null, project: null, constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }] }],
  tagTypes: [{ name: 'simple', description: 'kept', icon: '#', color: '#fff' }, { name: 'team', description: null, icon: null, color: null }],
  tags: [{ type: 'team', value: 'blue' }],
  strategyTypes: [
    { name: 'default', editable: false, parameters: [] },
    { name: 'byTier', title: 'By tier', description: 'custom', editable: true, deprecated: true, parameters: [{ name: 'tier', type: 'string', description: '', required: true }] },
  ],
  featureTypes: [{ id: 'release', lifetimeDays: 60 }, { id: 'kill-switch', lifetimeDays: null }, { id: 'sunset', lifetimeDays: 90 }],
  flags: [],
  apiTokens: [{ secret: 'web:production.s3cret-value', tokenName: 'sdk', type: 'client', environment: 'production', projects: ['web'], expiresAt: null }],
  users: [{ id: 4, username: 'ann', email: 'ann@example.com', name: 'Ann', rootRole: 2 }],
  unread: [{ what: 'groups', why: 'not readable: /api/admin/groups answered 404' }],
  ...extra,
})

const describe = (steps: Step[]) => steps.map((s) => `${s.to === 'instance' ? 'instance' : s.project}: ${s.command.type} ${s.label}`)

t.test('instance-wide things come first, in the order later ones need them, built-ins updated rather than created', async (t) => {
  const plan = planMigration(source(), options)
  t.same(describe(plan.setup), [
    'instance: environment.create development',
    'instance: environment.create production',
    'instance: featureType.setLifetime release',
    'instance: strategyType.create byTier',
    'instance: strategyType.deprecate byTier deprecated',
    'instance: contextField.update userId',
    'instance: contextField.create country',
    'instance: tagType.update simple',
    'instance: tagType.create team',
    'instance: tag.create team:blue',
    'instance: segment.create nordics',
    'web: project.create web',
  ])
  const segment = plan.setup.find((s) => s.command.type === 'segment.create')!.command
  t.match(segment, { id: 9, input: { name: 'nordics', constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }] } }, 'a segment keeps its id')
  const country = plan.setup.find((s) => s.label === 'country')!.command
  t.match(country, { input: { stickiness: true, sortOrder: 5, legalValues: [{ value: 'no', description: 'Norway' }, { value: 'se' }] } })
  t.match(plan.setup[2].command, { id: 'release', lifetimeDays: 60 }, 'only the lifetime the source changed')
  const environment = plan.setup[0].command
  t.match(environment, { input: { name: 'development', type: 'development', enabled: false, sortOrder: 2 } }, 'a disabled environment stays disabled')
  t.match(plan.setup.at(-1)!.command, { id: 'web', input: { name: 'Web', description: 'the site', mode: 'open', defaultStickiness: 'userId', environments: ['development', 'production'] } })
})

t.test("a flag's steps: created with its tags, strategies by id in sort order, variants, then switched on; stale after", async (t) => {
  const plan = planMigration(
    source({
      flags: [
        flag('checkout', {
          impressionData: true,
          stale: true,
          tags: [{ type: 'team', value: 'blue' }],
          environments: [
            {
              name: 'production',
              enabled: true,
              strategies: [
                { id: 'b', name: 'default', sortOrder: 2, title: 'second', disabled: true, constraints: [], parameters: {}, segments: [9], variants: [] },
                { id: 'a', name: 'flexibleRollout', sortOrder: 1, constraints: [{ contextName: 'country', operator: 'IN', values: ['no'], caseInsensitive: false, inverted: true }], parameters: { rollout: '50', stickiness: 'default', groupId: 'checkout' }, segments: [], variants: [{ name: 'v', weight: 1000, weightType: 'variable', stickiness: 'default', payload: { type: 'json', value: '{}' } }] },
              ],
              variants: [{ name: 'blue', weight: 1000, weightType: 'variable', stickiness: 'default', overrides: [{ contextName: 'userId', values: ['1'] }] }],
            },
            { name: 'development', enabled: false, strategies: [] },
          ],
        }),
      ],
    }),
    options,
  )
  t.same(describe(plan.flags[0]), [
    'web: feature.create checkout',
    'web: strategy.add checkout production a',
    'web: strategy.add checkout production b',
    'web: variants.set checkout production',
    'web: featureEnvironment.toggle checkout production',
    'web: feature.update checkout',
  ])
  t.match(plan.flags[0][0].command, { input: { name: 'checkout', impressionData: true, tags: [{ type: 'team', value: 'blue' }] } })
  t.match(plan.flags[0][2].command, { id: 'b', input: { name: 'default', title: 'second', disabled: true, sortOrder: 2, segments: [9] } })
  t.match(plan.flags[0][1].command, { id: 'a', input: { constraints: [{ inverted: true }], variants: [{ payload: { type: 'json' } }] } })
  t.match(plan.flags[0][5].command, { input: { stale: true } })
  t.same(plan.notCopied, [
    { kind: 'groups', label: 'groups', why: 'not readable: /api/admin/groups answered 404' },
    { kind: 'feature type lifetimes', label: 'sunset', why: 'no flag type sunset here: its lifetime is not copied, and a flag of that type would not be' },
  ], "what is not read, and a flag type of the source's that is not ours")
})

t.test('dependencies once every flag is in, archiving after them, then tokens with their secrets and users', async (t) => {
  const plan = planMigration(
    source({ flags: [flag('parent'), flag('child', { dependencies: [{ feature: 'parent', enabled: false, variants: [] }] }), flag('old', { archived: true }), flag('older', { archived: true })] }),
    options,
  )
  t.same(describe(plan.after), ['web: dependency.add child on parent', 'web: feature.archive 2 in web'])
  t.match(plan.after[0].command, { dependency: { feature: 'parent', enabled: false, variants: [] } })
  t.match(plan.after[1].command, { names: ['old', 'older'] })
  t.same(describe(plan.access), ['instance: apiToken.create sdk (client)'])
  t.match(plan.access[0].command, { input: { secret: 'web:production.s3cret-value', type: 'client', environment: 'production', projects: ['web'] } })
  t.same(plan.users, [{ label: 'ann', input: { username: 'ann', email: 'ann@example.com', name: 'Ann', rootRole: 2 } }])
})

t.test('what our schemas refuse is reported with the reason, and the rest is still copied', async (t) => {
  const plan = planMigration(
    source({
      flags: [
        flag('bad name with spaces'),
        flag('good', { environments: [{ name: 'production', enabled: true, strategies: [{ id: 'x', name: 'default', constraints: [{ contextName: 'country', operator: 'IN', values: 'no' }] }] }] }),
      ],
    }),
    options,
  )
  t.equal(plan.flags[0].length, 0, 'the flag our names refuse has no steps')
  t.same(describe(plan.flags[1]), ['web: feature.create good'], 'the other flag is copied, without its refused strategy and left off where that strategy was')
  t.same(plan.notCopied.map((n) => `${n.kind}: ${n.label}`), ['groups: groups', 'feature type lifetimes: sunset', 'flags: bad name with spaces', 'strategies: good production x', 'enabled environments: good production'])
  t.match(plan.notCopied.find((n) => n.label === 'good production x')?.why, /values/, 'the reason names the field')
})

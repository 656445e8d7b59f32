// Seeded, deterministic flags shaped like a real project's: rollouts with stickiness and groupId,
// user lists, constraints of every operator family, strategy variants with payloads.
import { forEachLimited, type AdminApi } from './admin-api.js'

export interface ConstraintInput {
  contextName: string
  operator: string
  values?: string[]
  value?: string
  caseInsensitive?: boolean
  inverted?: boolean
}

export interface StrategyInput {
  name: string
  parameters: Record<string, string>
  constraints: ConstraintInput[]
  variants?: { name: string; weight: number; weightType: 'variable'; stickiness: string; payload?: { type: string; value: string } }[]
}

export interface FeatureFixture {
  name: string
  type: string
  description: string
  impressionData: boolean
  strategies: StrategyInput[]
}

const mulberry32 = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
  return ((x ^ (x >>> 14)) >>> 0) / 4294967296
}

const areas = ['checkout', 'search', 'onboarding', 'billing', 'profile', 'feed', 'messaging', 'admin', 'reports', 'mobile']
const subjects = ['new-flow', 'redesign', 'fast-path', 'beta', 'kill-switch', 'experiment', 'migration', 'cache', 'banner', 'limits']
const types = ['release', 'release', 'release', 'experiment', 'operational', 'kill-switch', 'permission']
const countries = ['no', 'se', 'dk', 'de', 'fr', 'us', 'gb', 'nl', 'es', 'it']
const appNames = ['web', 'ios', 'android', 'api', 'worker']
const versions = ['1.0.0', '1.4.2', '2.0.0-beta.3', '2.0.0', '2.1.7', '3.0.0-rc.1', '3.0.0']
const stickinesses = ['default', 'userId', 'sessionId', 'tenantId']

export const realisticFeatures = (count: number, seed = 20240601): FeatureFixture[] => {
  const rand = mulberry32(seed)
  const int = (n: number) => Math.floor(rand() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]
  const chance = (p: number) => rand() < p
  const distinct = <T>(items: readonly T[], n: number): T[] => [...new Set(Array.from({ length: n }, () => pick(items)))]

  const constraint = (): ConstraintInput => {
    const inverted = chance(0.1)
    const base = (c: ConstraintInput): ConstraintInput => ({ ...c, ...(inverted ? { inverted } : {}) })
    switch (int(9)) {
      case 0:
        return base({ contextName: 'country', operator: 'IN', values: distinct(countries, 3) })
      case 1:
        return base({ contextName: 'tenantId', operator: 'IN', values: Array.from({ length: 20 }, () => `tenant-${int(500)}`) })
      case 2:
        return base({ contextName: 'plan', operator: 'NOT_IN', values: ['free'] })
      case 3:
        return base({ contextName: 'email', operator: 'STR_ENDS_WITH', values: ['@example.com', '@corp.example'], caseInsensitive: true })
      case 4:
        return base({ contextName: 'userId', operator: pick(['STR_STARTS_WITH', 'STR_CONTAINS']), values: ['user-1', 'user-2'] })
      case 5:
        return base({ contextName: 'age', operator: pick(['NUM_GTE', 'NUM_LT', 'NUM_EQ']), value: String(18 + int(40)) })
      case 6:
        return base({ contextName: 'currentTime', operator: pick(['DATE_AFTER', 'DATE_BEFORE']), value: pick(['2023-01-01T00:00:00.000Z', '2031-06-01T00:00:00.000Z']) })
      case 7:
        return base({ contextName: 'appVersion', operator: pick(['SEMVER_GTE', 'SEMVER_LT', 'SEMVER_EQ']), value: pick(versions) })
      default:
        return base({ contextName: 'appName', operator: 'IN', values: distinct(appNames, 2) })
    }
  }
  const constraints = (max: number) => Array.from({ length: int(max + 1) }, constraint)

  const variants = (stickiness: string): StrategyInput['variants'] => {
    const names = ['control', 'treatment-a', 'treatment-b'].slice(0, 2 + int(2))
    return names.map((name) => ({
      name,
      weight: Math.floor(1000 / names.length),
      weightType: 'variable' as const,
      stickiness,
      ...(chance(0.7)
        ? { payload: chance(0.5) ? { type: 'json', value: JSON.stringify({ color: pick(['red', 'blue', 'green']), limit: int(100) }) } : { type: 'string', value: `${name}-copy` } }
        : {}),
    }))
  }

  const strategy = (featureName: string): StrategyInput => {
    const kind = rand()
    if (kind < 0.5) {
      const stickiness = pick(stickinesses)
      return {
        name: 'flexibleRollout',
        parameters: { rollout: String(pick([0, 5, 10, 25, 50, 100, int(101)])), stickiness, groupId: featureName },
        constraints: constraints(3),
        ...(chance(0.3) ? { variants: variants(stickiness) } : {}),
      }
    }
    if (kind < 0.7) {
      const userIds = Array.from({ length: 100 }, () => `user-${100_000 + int(900_000)}`)
      return { name: 'userWithId', parameters: { userIds: userIds.join(',') }, constraints: [] }
    }
    if (kind < 0.9) return { name: 'default', parameters: {}, constraints: [constraint(), ...constraints(1)] }
    return { name: 'remoteAddress', parameters: { IPs: '10.0.0.0/8,192.168.0.0/16,203.0.113.7' }, constraints: [] }
  }

  return Array.from({ length: count }, (_, i) => {
    const name = `${pick(areas)}.${pick(subjects)}-${String(i).padStart(4, '0')}`
    const strategyCount = chance(0.5) ? 1 : chance(0.7) ? 2 : 3
    return {
      name,
      type: pick(types),
      description: `${pick(subjects).replace('-', ' ')} for ${pick(areas)}, owned by team ${pick(countries).toUpperCase()}-${int(20)}`,
      impressionData: chance(0.1),
      strategies: Array.from({ length: strategyCount }, () => strategy(name)),
    }
  })
}

export interface SeedOptions {
  project?: string
  environment?: string
  concurrency?: number
}

// The parameters of the strategy types the fixtures use that a fresh Unleash (v7+) no longer registers.
const legacyStrategyTypes: Record<string, { name: string; type: string; description: string; required: boolean }[]> = {
  userWithId: [{ name: 'userIds', type: 'list', description: '', required: true }],
}

// Registers the legacy types the fixtures use, as a custom strategy type, where the server lacks them.
export const registerStrategyTypes = async (api: AdminApi, features: readonly FeatureFixture[]): Promise<void> => {
  const listed = (await api.request('GET', '/api/admin/strategies')) as { strategies: { name: string }[] }
  const known = new Set(listed.strategies.map((s) => s.name))
  const used = new Set(features.flatMap((f) => f.strategies.map((s) => s.name)))
  for (const name of used) {
    if (!known.has(name) && legacyStrategyTypes[name]) await api.request('POST', '/api/admin/strategies', { name, parameters: legacyStrategyTypes[name] })
  }
}

// Creates the flag, adds its strategies in `environment` and turns the flag on there.
export const seedFeature = async (api: AdminApi, feature: FeatureFixture, options: SeedOptions = {}): Promise<void> => {
  const project = options.project ?? 'default'
  const environment = options.environment ?? 'development'
  const { strategies, ...create } = feature
  await api.createFeature(project, create)
  for (const strategy of strategies) await api.addStrategy(project, feature.name, environment, strategy)
  await api.enable(project, feature.name, environment)
}

export const seedFeatures = async (api: AdminApi, features: readonly FeatureFixture[], options: SeedOptions = {}): Promise<void> => {
  await registerStrategyTypes(api, features)
  await forEachLimited(features, options.concurrency ?? 16, (feature) => seedFeature(api, feature, options))
}

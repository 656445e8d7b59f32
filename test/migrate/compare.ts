// What the migration proofs compare: Unleash's and our answers to the same SDK requests, told apart
// only where the wire format may differ without an SDK seeing it.
import { mulberry32 } from '../../bench/lib/seeded-random.js'

type Json = Record<string, unknown>

// Unleash 8.2 leaves out a constraint's false caseInsensitive and inverted, and repeats a dependency
// once per strategy of the flag (a row of its join each): SDKs read both the same way.
const normalisedConstraint = (c: Json): Json => Object.fromEntries(Object.entries(c).filter(([k, value]) => !((k === 'caseInsensitive' || k === 'inverted') && value === false)))

// Keys in one order, so that two answers compare as text (arrays keep theirs: order is meaning there).
const canonical = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(canonical)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Json)[k])]))
      : value

export const normalisedFlag = (flag: Json): Json => {
  const strategies = ((flag.strategies ?? []) as Json[]).map((s) => ({ ...s, constraints: ((s.constraints ?? []) as Json[]).map(normalisedConstraint) }))
  const dependencies = flag.dependencies === undefined ? undefined : [...new Map((flag.dependencies as Json[]).map((d) => [JSON.stringify(canonical(d)), d])).values()]
  return canonical({ ...flag, strategies, ...(dependencies && { dependencies }) }) as Json
}

export const flagsByName = (body: { features: Json[] }): Map<string, Json> => new Map(body.features.map((f) => [String(f.name), normalisedFlag(f)]))

const countries = ['no', 'se', 'dk', 'de', 'fr', 'us', 'gb', 'nl', 'es', 'it']
const versions = ['1.0.0', '1.4.2', '2.0.0-beta.3', '2.0.0', '2.1.7', '3.0.0-rc.1', '3.0.0']

// Seeded contexts that reach the dataset's constraints and rollouts: ids in the user lists' range,
// every country, plan, age band, app and version.
export const seededContexts = (count: number, seed = 28): Json[] => {
  const rand = mulberry32(seed)
  const int = (n: number) => Math.floor(rand() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]
  return Array.from({ length: count }, (_, i) => ({
    userId: i % 7 === 0 ? pick(['user-1', 'user-2', 'user-12']) : `user-${100_000 + int(900_000)}`,
    sessionId: `session-${int(1_000_000)}`,
    appName: pick(['web', 'ios', 'android', 'api', 'worker']),
    ...(i % 3 === 0 && { remoteAddress: pick(['10.1.2.3', '192.168.7.7', '203.0.113.7', '198.51.100.1']) }),
    properties: {
      country: pick(countries),
      tenantId: `tenant-${int(500)}`,
      plan: pick(['free', 'pro', 'team']),
      email: pick(['a@example.com', 'b@corp.example', 'c@elsewhere.org', 'D@EXAMPLE.COM']),
      age: String(10 + int(60)),
      appVersion: pick(versions),
      tier: pick(['gold', 'silver']),
    },
  }))
}

// A frontend answer as a comparable list: every flag on for that context, with its variant.
export const frontendAnswer = (body: { toggles: Json[] }) =>
  body.toggles.map((t) => canonical({ name: t.name, enabled: t.enabled, variant: t.variant, impressionData: t.impressionData }) as Json).sort((a, b) => String(a.name).localeCompare(String(b.name)))

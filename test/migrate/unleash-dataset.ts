// The migration proof's source: the bench's realistic flags (constraints of every operator family,
// strategy variants with payloads) loaded into an Unleash through its admin API, plus what the bench
// leaves out: context fields with legal values, segments on strategies, dependencies, tags, strategies
// in a second environment (titled, disabled, of a custom type), stale and archived flags, a changed
// flag type lifetime, more API tokens. No flag (environment) variants: Unleash 8.2 refuses new ones
// as deprecated (403).
import { AdminApi, forEachLimited } from '../../bench/lib/admin-api.js'
import { realisticFeatures, registerStrategyTypes, seedFeature, type FeatureFixture } from '../../bench/lib/realistic-features.js'

const countries = ['no', 'se', 'dk', 'de', 'fr', 'us', 'gb', 'nl', 'es', 'it']

const flagPath = (name: string) => `/api/admin/projects/default/features/${encodeURIComponent(name)}`

// Every fifth strategy carries one of the segments (ids as Unleash gave them).
const withSegments = (features: FeatureFixture[], segmentIds: number[]) => {
  let n = 0
  return features.map((f) => ({ ...f, strategies: f.strategies.map((s) => (n++ % 5 === 0 ? { ...s, segments: [segmentIds[n % segmentIds.length]] } : s)) }))
}

export const loadDataset = async (api: AdminApi, count: number, progress: (line: string) => void = () => undefined): Promise<FeatureFixture[]> => {
  const contextFields = [
    { name: 'country', description: 'ISO country', legalValues: countries.map((value) => ({ value, description: value.toUpperCase() })) },
    { name: 'tenantId', description: 'tenant', stickiness: true },
    { name: 'plan', legalValues: [{ value: 'free' }, { value: 'pro' }, { value: 'team' }] },
    { name: 'email' },
    { name: 'age' },
    { name: 'appVersion', description: 'semver of the app' },
  ]
  for (const field of contextFields) await api.request('POST', '/api/admin/context', field)
  await api.request('POST', '/api/admin/tag-types', { name: 'team', description: 'owning team' })
  await api.request('POST', '/api/admin/strategies', {
    name: 'byTenantTier',
    description: 'custom: tenants of a tier',
    parameters: [{ name: 'tier', type: 'string', description: 'gold, silver', required: true }],
  })
  const segmentIds: number[] = []
  const segments = [
    { name: 'nordics', description: 'Nordic countries', constraints: [{ contextName: 'country', operator: 'IN', values: ['no', 'se', 'dk'] }] },
    { name: 'paying', constraints: [{ contextName: 'plan', operator: 'NOT_IN', values: ['free'] }, { contextName: 'age', operator: 'NUM_GTE', value: '18' }] },
    { name: 'new-apps', constraints: [{ contextName: 'appVersion', operator: 'SEMVER_GTE', value: '2.0.0' }] },
  ]
  for (const segment of segments) segmentIds.push(((await api.request('POST', '/api/admin/segments', segment)) as { id: number }).id)
  const features = withSegments(realisticFeatures(count), segmentIds)
  await registerStrategyTypes(api, features)
  let done = 0
  await forEachLimited(features, 8, async (feature) => {
    await seedFeature(api, feature)
    if (++done % 200 === 0) progress(`unleash: ${done} flags`)
  })
  await addExtras(api, features)
  return features
}

const addExtras = async (api: AdminApi, features: FeatureFixture[]): Promise<void> => {
  // Dependencies: flag i+1 of every 25 depends on flag i being on (every other one: off).
  for (let i = 0; i + 1 < features.length; i += 25) {
    const parent = features[i]
    const child = features[i + 1]
    await api.request('POST', `${flagPath(child.name)}/dependencies`, i % 50 === 0 ? { feature: parent.name, enabled: true } : { feature: parent.name, enabled: false })
  }
  // Production: a tenth of the flags on there with a default strategy and the custom one.
  await forEachLimited(
    features.filter((_, i) => i % 10 === 7),
    8,
    async (f, i) => {
      const env = `${flagPath(f.name)}/environments/production`
      await api.request('POST', `${env}/strategies`, { name: 'default', title: `prod ${i}`, constraints: [{ contextName: 'country', operator: 'IN', values: ['no'] }], parameters: {} })
      await api.request('POST', `${env}/strategies`, { name: 'byTenantTier', parameters: { tier: 'gold' }, constraints: [], disabled: i % 2 === 0 })
      await api.request('POST', `${env}/on`)
    },
  )
  // Tags, stale, archived.
  await forEachLimited(features.filter((_, i) => i % 20 === 5), 8, (f, i) => api.request('POST', `/api/admin/features/${encodeURIComponent(f.name)}/tags`, { type: 'team', value: `team-${i % 4}` }).then(() => undefined))
  await api.request('POST', '/api/admin/projects/default/stale', { features: features.filter((_, i) => i % 50 === 9).map((f) => f.name), stale: true })
  const archived = features.filter((_, i) => i % 100 === 39).map((f) => f.name)
  for (const name of archived) await api.request('DELETE', flagPath(name))
  await api.request('PUT', '/api/admin/feature-types/release/lifetime', { lifetimeDays: 60 })
  await api.request('POST', '/api/admin/user-admin', { email: 'editor@example.com', name: 'Ed Itor', rootRole: 2, sendEmail: false })
  // Unleash 8.2 makes its own secrets (a given one is ignored): the proof reads them back.
  await api.request('POST', '/api/admin/api-tokens', { tokenName: 'proof-prod-client', type: 'client', environment: 'production', projects: ['default'] })
  await api.request('POST', '/api/admin/api-tokens', { tokenName: 'proof-prod-frontend', type: 'frontend', environment: 'production', projects: ['default'] })
}

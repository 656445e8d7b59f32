// The client specification's delta files, run against this server with the real unleash-client in both
// push modes. Each file's state is loaded through the admin API only: a hydration file before the SDK
// connects (it arrives as the hydration), an events file after (it arrives as feature-updated,
// segment-updated and feature-removed events), so that every kind of event reaches the SDK over the wire.
import { randomBytes } from 'node:crypto'
import t from 'tap'
import type { Unleash } from 'unleash-client'
import { archiveFeature, expectOk, getClientFeatures } from '../helpers/admin-api.js'
import { eventually } from '../helpers/expect.js'
import { startSdk } from '../helpers/sdk.js'
import { startTestServer } from '../helpers/server.js'
import { loadSpec, loadSpecState, type Spec, type SpecFeature, type SpecSegment } from '../helpers/spec-loader.js'

type DeltaEvent =
  | { type: 'hydration'; eventId: number; features: SpecFeature[]; segments: SpecSegment[] }
  | { type: 'feature-updated'; eventId: number; feature: SpecFeature }
  | { type: 'feature-removed'; eventId: number; featureName: string; project: string }
  | { type: 'segment-updated'; eventId: number; segment: SpecSegment }
  | { type: 'segment-removed'; eventId: number; segmentId: number }

// The file's events folded as an SDK applies them; flags removed on the way are kept apart, to be
// created and then archived so that their removal travels too.
const fold = (events: DeltaEvent[]) => {
  const features = new Map<string, SpecFeature>()
  const removed = new Map<string, SpecFeature>()
  const segments = new Map<number, SpecSegment>()
  for (const event of events) {
    if (event.type === 'hydration') {
      features.clear()
      segments.clear()
      for (const f of event.features) features.set(f.name, f)
      for (const s of event.segments) segments.set(s.id, s)
    } else if (event.type === 'feature-updated') {
      features.set(event.feature.name, event.feature)
      removed.delete(event.feature.name)
    } else if (event.type === 'feature-removed') {
      const gone = features.get(event.featureName)
      features.delete(event.featureName)
      if (gone) removed.set(gone.name, gone)
    } else if (event.type === 'segment-updated') segments.set(event.segment.id, event.segment)
    else segments.delete(event.segmentId)
  }
  return { features: [...features.values()], removed: [...removed.values()], segments: [...segments.values()] }
}

interface ServedFlag {
  name: string
  enabled: boolean
  strategies?: unknown[]
  variants?: unknown[]
}

// What decides isEnabled and getVariant, as the SDK keeps it and as the server serves it.
const sameFlag = (held: { enabled: boolean; strategies?: unknown[]; variants?: unknown[] } | undefined, served: ServedFlag): boolean =>
  held !== undefined &&
  held.enabled === served.enabled &&
  JSON.stringify(held.strategies ?? []) === JSON.stringify(served.strategies ?? []) &&
  JSON.stringify(held.variants ?? []) === JSON.stringify(served.variants ?? [])

const files = ['19-delta-api-hydration.json', '20-delta-api-events.json']
const modes = [
  { name: 'streaming', config: { experimentalMode: { type: 'streaming' as const }, refreshInterval: 3_600_000 } },
  { name: 'delta polling', config: { experimentalMode: { type: 'polling' as const, format: 'delta' as const }, refreshInterval: 50 } },
]

for (const file of files) {
  const spec: Spec = loadSpec(file)
  const events = (spec.state.events ?? []) as DeltaEvent[]
  const state = fold(events)
  const startsWithHydration = events[0]?.type === 'hydration'
  for (const mode of modes) {
    t.test(`${file} via ${mode.name}`, async (t) => {
      const clientToken = `*:development.${randomBytes(28).toString('hex')}`
      const server = await startTestServer(t, { env: { INIT_CLIENT_API_TOKENS: clientToken } })
      const load = async () => {
        const loaded = await loadSpecState(server, { name: spec.name, state: { features: [...state.features, ...state.removed], segments: state.segments } })
        for (const step of loaded.steps) t.ok(step.status >= 200 && step.status < 300, `${step.what}: accepted (${step.status} ${step.text})`)
        for (const f of state.removed) expectOk(await archiveFeature(server, f.project ?? 'default', f.name), `archive ${f.name}`)
      }
      let sdk: Unleash
      if (startsWithHydration) {
        await load()
        sdk = await startSdk(t, server.baseUrl, clientToken, mode.config)
      } else {
        sdk = await startSdk(t, server.baseUrl, clientToken, mode.config)
        t.same(sdk.getFeatureToggleDefinitions(), [], 'connected to an empty server')
        await load()
      }
      const expected = state.features.map((f) => f.name).sort()
      const names = () => sdk.getFeatureToggleDefinitions().map((f) => f.name).sort()
      // The SDK is current once it holds what the server now serves, flag by flag, not only the names:
      // the enabling updates may still be on their way when the names are already right.
      // As an SDK of this specification gets them: strategies name their segments rather than inline them.
      const served = expectOk(await getClientFeatures(server, clientToken, '', { 'unleash-client-spec': '5.2.0' }), 'the client features').body.features as ServedFlag[]
      await eventually(() => served.every((flag) => sameFlag(sdk.getFeatureToggleDefinition(flag.name), flag)) && names().length === served.length, 30_000)
      t.same(names(), expected, 'the SDK holds the flags the events leave')
      for (const c of spec.tests ?? []) {
        t.equal(sdk.isEnabled(c.toggleName, c.context as Record<string, string>), c.expectedResult, c.description)
      }
    })
  }
}

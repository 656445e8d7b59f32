import t from 'tap'
import type { FeatureExport } from '../../src/domain/event-data.js'
import { recordOfType } from '../../src/domain/events.js'
import { decideRecordExport, maxExportEventBytes } from '../../src/domain/export-import.js'

const meta = { now: '2024-01-01T00:00:00.000Z', actor: { name: 'viewer', userId: 7 } }

const exportOf = (features: { name: string; description?: string }[]): FeatureExport => ({
  features: features.map(({ name, description = null }) => ({ name, type: 'release', description, project: 'default', stale: false, impressionData: false, archived: false })),
  featureStrategies: [],
  featureEnvironments: [],
  contextFields: [],
  featureTags: [],
  segments: [],
  tagTypes: [],
  dependencies: [],
})

t.test('a small export is recorded whole, as Unleash records it', async (t) => {
  const data = exportOf([{ name: 'a' }, { name: 'b' }])
  const result = decideRecordExport(data, 'production', meta)
  t.ok(result.ok)
  if (result.ok) t.same(result.value[0].data, data)
})

t.test('a large export records the flag names, at most 1,000 of them, not the document', async (t) => {
  const features = Array.from({ length: 5000 }, (_, i) => ({ name: `flag-${i}`, description: 'x'.repeat(500) }))
  const result = decideRecordExport(exportOf(features), 'production', meta)
  t.ok(result.ok)
  if (!result.ok) return
  const event = recordOfType(result.value, 'features-exported')
  t.match(event.data, { environment: 'production', featureCount: 5000, truncated: true })
  t.equal(event.data.features.length, 1000)
  t.equal(event.data.features[0], 'flag-0')
  t.ok(JSON.stringify(event).length < maxExportEventBytes, 'the event stays under the bound')
})

import t from 'tap'
import { FeatureUsage } from '../../src/read/feature-usage.js'

const clockAt = (iso: string) => {
  let now = new Date(iso)
  return { clock: () => now, set: (next: string) => (now = new Date(next)) }
}

t.test('reports of one hour add up per environment and application', async (t) => {
  const time = clockAt('2026-01-01T10:15:00Z')
  const usage = new FeatureUsage(time.clock)
  usage.record({ featureName: 'f', appName: 'web', environment: 'development', yes: 2, no: 1, variants: { blue: 2 } })
  usage.record({ featureName: 'f', appName: 'web', environment: 'development', yes: 1, no: 0, variants: { blue: 1 } })
  usage.record({ featureName: 'f', appName: 'api', environment: 'production', yes: 0, no: 4 })
  t.same(usage.recent('f', 1), [
    { featureName: 'f', appName: 'web', environment: 'development', timestamp: '2026-01-01T10:00:00.000Z', yes: 3, no: 1, variants: { blue: 3 } },
    { featureName: 'f', appName: 'api', environment: 'production', timestamp: '2026-01-01T10:00:00.000Z', yes: 0, no: 4, variants: {} },
  ])
  t.same(usage.applications('f'), ['api', 'web'])
  t.same(usage.recent('other', 1), [], 'a flag nothing reported has no usage')
})

t.test('the hourly series has every hour, zero where nothing was reported', async (t) => {
  const time = clockAt('2026-01-01T08:30:00Z')
  const usage = new FeatureUsage(time.clock)
  usage.record({ featureName: 'f', appName: 'web', environment: 'development', yes: 5, no: 0 })
  time.set('2026-01-01T10:05:00Z')
  usage.record({ featureName: 'f', appName: 'web', environment: 'development', yes: 1, no: 1 })
  const series = usage.hourly('f', 3)
  t.same(series.map((b) => [b.timestamp.slice(11, 13), b.yes, b.no]), [['08', 5, 0], ['09', 0, 0], ['10', 1, 1]])
  t.same(usage.recent('f', 1).map((b) => b.yes), [1], 'the last hour is the current one only')
})

t.test('hours older than the 48 kept are dropped', async (t) => {
  const time = clockAt('2026-01-01T00:10:00Z')
  const usage = new FeatureUsage(time.clock)
  usage.record({ featureName: 'f', appName: 'web', environment: 'development', yes: 1, no: 0 })
  time.set('2026-01-03T00:10:00Z')
  usage.record({ featureName: 'g', appName: 'web', environment: 'development', yes: 1, no: 0 })
  t.same(usage.recent('f', 48), [], 'two days later the first hour is gone')
  t.same(usage.applications('f'), [])
})

t.test("a flag's last hour per environment sums the hourly rows that started in the last hour", async (t) => {
  const time = clockAt('2024-05-01T10:05:00Z')
  const usage = new FeatureUsage(time.clock)
  usage.record({ featureName: 'f', appName: 'web', environment: 'production', yes: 3, no: 1 })
  time.set('2024-05-01T10:55:00Z')
  usage.record({ featureName: 'f', appName: 'api', environment: 'production', yes: 2, no: 0 })
  time.set('2024-05-01T10:59:00Z')
  t.same(usage.lastHour('f', 'production'), { yes: 5, no: 1 }, 'both applications')
  t.same(usage.lastHour('f', 'development'), { yes: 0, no: 0 }, 'per environment')
  time.set('2024-05-01T11:00:00Z')
  t.same(usage.lastHour('f', 'production'), { yes: 5, no: 1 }, "Unleash sums the rows of the last hour: 10:00's row at 11:00 exactly")
  time.set('2024-05-01T11:00:01Z')
  t.same(usage.lastHour('f', 'production'), { yes: 0, no: 0 })
})

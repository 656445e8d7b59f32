import t from 'tap'
import { HourlyCounts } from '../../src/read/hourly-counts.js'

const at = (time: string) => Date.parse(`2024-05-01T${time}Z`)

t.test('counts add up within an hour; a new hour starts again; an hour-old row no longer counts', async (t) => {
  const counts = new HourlyCounts()
  counts.record('f', 'production', at('10:05:00'), 3, 1)
  counts.record('f', 'production', at('10:55:00'), 2, 0)
  t.same(counts.of('f', 'production', at('10:59:00')), { yes: 5, no: 1 })
  t.same(counts.of('f', 'development', at('10:59:00')), { yes: 0, no: 0 }, 'per environment')
  t.same(counts.of('f', 'production', at('11:00:00')), { yes: 5, no: 1 }, "Unleash sums the rows of the last hour: 10:00's row at 11:00 exactly")
  t.same(counts.of('f', 'production', at('11:00:01')), { yes: 0, no: 0 })
  counts.record('f', 'production', at('11:10:00'), 1, 1)
  counts.record('f', 'production', at('10:59:00'), 100, 100)
  t.same(counts.of('f', 'production', at('11:20:00')), { yes: 1, no: 1 }, 'a late count for an earlier hour is dropped')
})

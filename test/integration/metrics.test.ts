import t from 'tap'
import { createFeature, expectOk } from '../helpers/admin-api.js'
import { startTestServer } from '../helpers/server.js'

const scrape = async (baseUrl: string, authorization?: string) => {
  const res = await fetch(`${baseUrl}/internal-backstage/prometheus`, { headers: authorization ? { authorization } : {} })
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text() }
}
const valueOf = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])

t.test('the Prometheus scrape shows the log position, flags, streams and memory', async (t) => {
  const server = await startTestServer(t)
  expectOk(await createFeature(server, 'default', 'counted'), 'a flag')
  const { status, type, text } = await scrape(server.baseUrl)
  t.equal(status, 200)
  t.match(type, /^text\/plain/)
  t.equal(valueOf(text, 'flagwright_features'), 1)
  t.ok(valueOf(text, 'flagwright_log_last_id') > 0, 'the committed log id')
  t.equal(valueOf(text, 'flagwright_streaming_clients'), 0)
  t.equal(valueOf(text, 'flagwright_streaming_buffered_bytes'), 0)
  t.equal(valueOf(text, 'flagwright_streaming_dropped_slow_total'), 0)
  t.ok(valueOf(text, 'process_resident_memory_bytes') > 0)
  t.notMatch(text, /flagwright_replication_lag_records \d/, 'no replica figures on a writer without NATS')
})

t.test('with METRICS_TOKEN the scrape needs it as a Bearer token', async (t) => {
  const server = await startTestServer(t, { env: { METRICS_TOKEN: 'scrape-secret' } })
  t.equal((await scrape(server.baseUrl)).status, 401)
  t.equal((await scrape(server.baseUrl, 'Bearer wrong')).status, 401)
  t.equal((await scrape(server.baseUrl, 'Bearer scrape-secret')).status, 200)
})

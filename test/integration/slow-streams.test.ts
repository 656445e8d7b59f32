// Issue 23: SDK streams whose clients stop reading must not make the server hold every frame they miss.
import { readFileSync } from 'node:fs'
import net from 'node:net'
import t from 'tap'
import { addStrategy, clientToken, createFeature, disableFeature, enableFeature, expectOk } from '../helpers/admin-api.js'
import { eventually } from '../helpers/expect.js'
import { startTestServer } from '../helpers/server.js'
import { eventsOf, openStream } from '../helpers/sse.js'

const scrape = async (baseUrl: string): Promise<string> => (await fetch(`${baseUrl}/internal-backstage/prometheus`)).text()
const valueOf = (text: string, name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
// The resident memory of a process now (VmRSS) and its highest so far (VmHWM).
const memoryOf = (pid: number) => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+)\\s+kB`, 'm').exec(status)?.[1]) * 1024
  return { rss: kb('VmRSS'), peak: kb('VmHWM') }
}

// About 290 KB of JSON per change, within the default limits: 10 strategies of 4 constraints of 250 values.
const addBigStrategies = async (server: Parameters<typeof addStrategy>[0], feature: string) => {
  for (let s = 0; s < 10; s++) {
    const constraints = Array.from({ length: 4 }, (_, c) => ({
      contextName: 'userId',
      operator: 'IN',
      values: Array.from({ length: 250 }, (_, v) => `user-${s}-${c}-${v}-${'x'.repeat(14)}`),
    }))
    expectOk(await addStrategy(server, 'default', feature, 'development', { name: 'default', constraints }), `strategy ${s}`)
  }
}

// A raw connection that asks for the stream and then never reads: what the server writes piles up in the
// kernel's socket buffers and then in the server, unless the server stops writing.
const openUnreadStream = (port: number, token: string) => {
  const socket = net.connect({ host: '127.0.0.1', port })
  socket.pause()
  socket.on('error', () => {})
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
  socket.write(`GET /api/client/streaming HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${token}\r\nUnleash-Client-Spec: 5.2.0\r\nAccept: text/event-stream\r\n\r\n`)
  return { socket, closed }
}

t.test('streams that never read are ended past STREAMING_MAX_BUFFERED_BYTES and counted; memory stays flat; a reader gets every change', async (t) => {
  const slowCount = 30
  const toggles = 50
  const server = await startTestServer(t, { mode: 'child', env: { STREAMING_MAX_BUFFERED_BYTES: String(64 * 1024), STREAMING_MAX_CONNECTIONS: '1000' } })
  expectOk(await createFeature(server, 'default', 'big'), 'create big')
  await addBigStrategies(server, 'big')
  const token = await clientToken(server, ['*'])
  const slow = Array.from({ length: slowCount }, () => openUnreadStream(server.port, token))
  t.teardown(() => slow.forEach((s) => s.socket.destroy()))
  const reader = await openStream(t, server.baseUrl, '/api/client/streaming', { authorization: token, 'Unleash-Client-Spec': '5.2.0' })
  await reader.next((f) => f.event === 'unleash-connected', 10_000)
  const open = await eventually(async () => valueOf(await scrape(server.baseUrl), 'flagwright_streaming_clients') === slowCount + 1, 10_000)
  t.ok(open, `${slowCount + 1} streams open`)
  const before = memoryOf(server.pid).rss

  for (let i = 0; i < toggles; i++) {
    const toggle = i % 2 === 0 ? enableFeature : disableFeature
    expectOk(await toggle(server, 'default', 'big', 'development'), `toggle ${i}`)
  }
  // What the reader was sent, in order: one frame per change, the last one showing the last state.
  const last = await reader.next((f) => f.event === 'unleash-updated' && reader.frames.filter((g) => g.event === 'unleash-updated').length === toggles, 20_000)
  const updates = reader.frames.filter((f) => f.event === 'unleash-updated').map((f) => eventsOf(f))
  t.equal(updates.length, toggles, 'the reader got a frame for every change')
  t.ok(updates.every((events, i) => events.length === 1 && events[0].type === 'feature-updated' && events[0].feature.enabled === (i % 2 === 0)), 'each frame is that change')
  t.equal(eventsOf(last)[0].feature.strategies.length, 10, 'with the whole flag')

  const dropped = await eventually(async () => valueOf(await scrape(server.baseUrl), 'flagwright_streaming_dropped_slow_total') === slowCount, 20_000)
  t.ok(dropped, `the ${slowCount} unread streams are counted as dropped`)
  const metrics = await scrape(server.baseUrl)
  t.equal(valueOf(metrics, 'flagwright_streaming_clients'), 1, 'only the reader is left')
  t.ok(valueOf(metrics, 'flagwright_streaming_buffered_bytes') < 64 * 1024, 'nothing much held for the reader')
  // Without a limit the server held each frame the kernel would not take, for each stream: some 290 KB x 36
  // x 30 (300 MB), until uWS's timeout closed them.
  const growth = memoryOf(server.pid).peak - before
  t.ok(growth < 100 * 2 ** 20, `server RSS peaked ${(growth / 2 ** 20).toFixed(1)} MiB above where it was before the changes`)

  // The client sees its stream end once it reads what the kernel had taken.
  for (const s of slow) s.socket.resume()
  await Promise.all(slow.map((s) => s.closed))
  t.pass('every unread stream was closed by the server')
  expectOk(await enableFeature(server, 'default', 'big', 'development'), 'one more change')
  await reader.next((f) => f.event === 'unleash-updated' && reader.frames.filter((g) => g.event === 'unleash-updated').length === toggles + 1, 10_000)
  t.pass('the reader still follows')
})

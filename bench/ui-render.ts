// How long the web UI takes to show a project of 1,000 flags in Chromium (measured, not asserted):
// the fetch of GET /api/admin/projects/:id/features, then the table rendered with every row present.
// Run: node scripts/build.mjs && node dist/bench/ui-render.js  (needs /usr/bin/chromium or CHROMIUM_PATH)
import { mkdtempSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { chromium } from 'playwright-core'
import { loadConfig } from '../src/config.js'
import { startServer } from '../src/server.js'
import { findChromium } from '../ui/test/e2e/browser.js'

const flags = 1000
const runs = 7
const password = 'Bench-pass-for-ui-1'
const executablePath = findChromium()
if (!executablePath) throw new Error('no Chromium found (install it with apt-get install -y chromium, or set CHROMIUM_PATH)')

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ui-render-'))
const token = '*:*.bench-ui-render'
const server = await startServer(loadConfig({ HTTP_PORT: '0', DATA_DIR: dataDir, INIT_ADMIN_API_TOKENS: token, UNLEASH_DEFAULT_ADMIN_PASSWORD: password }))
const base = `http://127.0.0.1:${server.port}`
const api = (method: string, apiPath: string, body?: unknown) =>
  fetch(`${base}${apiPath}`, { method, headers: { authorization: token, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
for (let i = 0; i < flags; i += 50) {
  await Promise.all(
    Array.from({ length: 50 }, async (_, j) => {
      const name = `flag-${String(i + j).padStart(4, '0')}`
      await api('POST', '/api/admin/projects/default/features', { name, type: (i + j) % 3 ? 'release' : 'experiment' })
      await api('POST', `/api/admin/features/${name}/tags`, { type: 'simple', value: `team-${(i + j) % 7}` })
      if ((i + j) % 2) await api('POST', `/api/admin/projects/default/features/${name}/environments/development/on`)
    }),
  )
}

const browser = await chromium.launch({ executablePath, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
const page = await browser.newPage({ baseURL: base, viewport: { width: 1280, height: 900 } })
await page.goto('/')
await page.getByLabel('Username or email').fill('admin')
await page.getByLabel('Password').fill(password)
await page.getByRole('button', { name: 'Sign in' }).click()
await page.getByRole('button', { name: 'Sign out' }).waitFor()

const results: { fetchMs: number; totalMs: number; renderMs: number }[] = []
for (let run = 0; run < runs; run++) {
  await page.evaluate(() => (location.hash = '#/playground'))
  await page.getByRole('button', { name: 'Evaluate' }).waitFor()
  results.push(
    await page.evaluate(async (expected) => {
      const fetchStart = performance.now()
      await (await fetch('/api/admin/projects/default/features')).json()
      const fetchMs = performance.now() - fetchStart
      const start = performance.now()
      location.hash = '#/projects/default'
      await new Promise<void>((resolve) => {
        // The table is windowed: done when its rows are in and it spans all of them (aria-rowcount).
        const check = () =>
          document.querySelector(`table.flags[aria-rowcount="${expected + 1}"] tr[data-flag]`) ? resolve() : requestAnimationFrame(check)
        check()
      })
      // Wait for the frame that paints it.
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)))
      const end = performance.now()
      // The page's own read of the flags: rendering starts when its response has arrived.
      const own = performance
        .getEntriesByType('resource')
        .filter((e) => e.name.endsWith('/api/admin/projects/default/features') && e.startTime >= start)
        .map((e) => (e as PerformanceResourceTiming).responseEnd)
      return { fetchMs, totalMs: end - start, renderMs: end - Math.max(start, ...own) }
    }, flags),
  )
}
// The window follows the scroll: at the bottom, the last flag is there.
await page.evaluate(() => scrollTo(0, document.body.scrollHeight))
await page.locator('tr[data-flag="flag-0999"]').waitFor({ timeout: 5000 })
console.log('scrolled to the bottom: flag-0999 is rendered')

if (process.env.PROFILE) {
  const cdp = await page.context().newCDPSession(page)
  await page.evaluate(() => (location.hash = '#/playground'))
  await page.getByRole('button', { name: 'Evaluate' }).waitFor()
  await cdp.send('Profiler.enable')
  await cdp.send('Profiler.setSamplingInterval', { interval: 100 })
  await cdp.send('Profiler.start')
  await page.evaluate(() => (location.hash = '#/projects/default'))
  await page.waitForFunction((n) => !!document.querySelector(`table.flags[aria-rowcount="${n + 1}"] tr[data-flag]`), flags)
  const { profile } = await cdp.send('Profiler.stop')
  const self = new Map<string, number>()
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const dt = profile.timeDeltas ?? []
  profile.samples?.forEach((id, i) => {
    const n = byId.get(id)!
    const key = `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber}:${n.callFrame.columnNumber}`
    self.set(key, (self.get(key) ?? 0) + (dt[i] ?? 0) / 1000)
  })
  console.log([...self].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${v.toFixed(1)} ms ${k}`).join('\n'))
}
await browser.close()
await server.close()
rmSync(dataDir, { recursive: true, force: true })

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]
const fetchMs = median(results.map((r) => r.fetchMs))
const totalMs = median(results.map((r) => r.totalMs))
const renderMs = median(results.map((r) => r.renderMs))
console.log(`${flags} flags, median of ${runs} runs: fetch+parse alone ${fetchMs.toFixed(0)} ms; navigation to painted table ${totalMs.toFixed(0)} ms; from the page's response to the painted table ${renderMs.toFixed(0)} ms`)

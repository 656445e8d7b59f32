import t from 'tap'
import { adminPassword, requireChromium, signIn, startUi } from './browser.js'

// Every page has the application's name in its title after what it shows, and nothing a page loads
// answers 404 (the favicon did, on every page).
t.test('pages are titled for what they show and load no missing file (the favicon)', async (t) => {
  const chromium = requireChromium(t)
  if (!chromium) return
  const ui = await startUi(t, chromium)
  await ui.api('POST', '/api/admin/projects/default/features', { name: 'dark-mode' })
  const { page, errors } = await ui.newPage()
  const missing: string[] = []
  page.on('response', (res) => res.status() === 404 && missing.push(res.url()))
  const icon = page.waitForResponse((res) => new URL(res.url()).pathname.startsWith('/favicon'))
  await page.goto('/')
  // The page names itself once its script has asked who is signed in: wait for that, as for the pages below.
  const titled = (expected: string) => page.waitForFunction((title) => document.title === title, expected, { timeout: 15_000 }).catch(() => {})
  await titled('Sign in · Flagwright')
  t.equal(await page.title(), 'Sign in · Flagwright', 'the sign-in page')
  const iconResponse = await icon
  t.equal(iconResponse.status(), 200, `the favicon is served (${new URL(iconResponse.url()).pathname})`)
  t.equal(iconResponse.headers()['content-type'], 'image/svg+xml', 'as an SVG image')
  await signIn(page, 'admin', adminPassword)
  const pages: [string, string][] = [
    ['#/projects', 'Projects · Flagwright'],
    ['#/projects/default', 'default · Flagwright'],
    ['#/projects/default/settings', 'Settings · default · Flagwright'],
    ['#/projects/default/flags/dark-mode', 'dark-mode · default · Flagwright'],
    ['#/archive', 'Archived flags · Flagwright'],
    ['#/admin/api-tokens', 'API tokens · Flagwright'],
  ]
  for (const [hash, title] of pages) {
    await page.goto(`/${hash}`)
    await titled(title)
    t.equal(await page.title(), title, `${hash} is titled "${title}"`)
  }
  const ico = await page.request.get('/favicon.ico')
  t.equal(ico.status(), 200, '/favicon.ico answers too (browsers ask for it whatever the page names)')
  t.same(missing, [], 'no request answered 404')
  t.same(errors, [], 'the pages threw no uncaught errors')
})

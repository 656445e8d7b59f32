// Drives the system Chromium (Debian's `chromium`) through playwright-core against a fresh server.
// Browser downloads are not possible here, so playwright-core gets the browser's path. Without one:
// in CI (CI or UI_TESTS_REQUIRE_CHROMIUM set, as .ci/run does) the test fails; elsewhere it is skipped
// with a banner that cannot be missed.
import { existsSync, mkdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core'
import type { Test } from 'tap'
import { startTestServer, type TestServer } from '../../../test/helpers/server.js'

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
export const screenshotDir = path.join(repoRoot, 'test-artifacts', 'screenshots')
export const adminPassword = 'Admin-pass-for-ui-tests-1'

const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome']

export const findChromium = (): string | undefined => candidates.find((p): p is string => !!p && existsSync(p))

// Skips `t` (loudly) or fails it (in CI) when there is no browser; returns the path otherwise.
export const requireChromium = (t: Test): string | undefined => {
  const found = findChromium()
  if (found) return found
  const message = `NO CHROMIUM FOUND (looked at ${candidates.filter(Boolean).join(', ')}): the browser tests DID NOT RUN. Install it with \`apt-get install -y chromium\` or set CHROMIUM_PATH.`
  if (process.env.CI || process.env.UI_TESTS_REQUIRE_CHROMIUM) {
    t.fail(message)
    return undefined
  }
  const bar = '!'.repeat(100)
  process.stderr.write(`\n${bar}\n!! ${message}\n${bar}\n\n`)
  t.comment(message)
  void t.skip(message, () => {})
  return undefined
}

export interface UiHarness {
  server: TestServer
  browser: Browser
  baseUrl: string
  // `errors` collects uncaught page errors; scenarios assert it stays empty.
  newPage(): Promise<{ context: BrowserContext; page: Page; errors: string[] }>
  screenshot(page: Page, name: string): Promise<string>
  // An admin API call with the server's admin token (test setup the UI is not under test for).
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<T>
}

export const startUi = async (t: Test, executablePath: string, env: Record<string, string> = {}): Promise<UiHarness> => {
  const server = await startTestServer(t, { env: { UNLEASH_DEFAULT_ADMIN_PASSWORD: adminPassword, ...env } })
  const browser = await chromium.launch({ executablePath, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] })
  t.teardown(() => browser.close())
  mkdirSync(screenshotDir, { recursive: true })
  return {
    server,
    browser,
    baseUrl: server.baseUrl,
    newPage: async () => {
      const context = await browser.newContext({ baseURL: server.baseUrl, viewport: { width: 1280, height: 900 } })
      const page = await context.newPage()
      page.setDefaultTimeout(10_000)
      const errors: string[] = []
      page.on('pageerror', (error) => errors.push(String(error)))
      t.teardown(() => context.close())
      return { context, page, errors }
    },
    screenshot: async (page, name) => {
      const file = path.join(screenshotDir, `${name}.png`)
      await page.screenshot({ path: file, fullPage: true })
      return file
    },
    api: async <T>(method: string, apiPath: string, body?: unknown): Promise<T> => {
      const res = await fetch(`${server.baseUrl}${apiPath}`, {
        method,
        headers: { authorization: server.adminToken, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.text()
      if (!res.ok) throw new Error(`${method} ${apiPath}: ${res.status} ${text}`)
      return (text ? JSON.parse(text) : undefined) as T
    },
  }
}

export const signIn = async (page: Page, username: string, password: string) => {
  await page.goto('/')
  await page.getByLabel('Username or email').fill(username)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.getByRole('button', { name: 'Sign out' }).waitFor()
}

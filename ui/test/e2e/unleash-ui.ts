// Unleash's own admin UI (the static build inside the npm package unleash-server@8.2.0) in front of our
// server, the way someone would run it: a small proxy serves its files and forwards the API to us.
// The package is not a dependency of the project: `npm pack` fetches its one tarball (no dependency
// install) and only package/frontend/build is kept, in a cache folder that outlives /tmp.
import { execFile } from 'node:child_process'
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Page, Request } from 'playwright-core'

export const unleashUiVersion = '8.2.0'
// The registry's integrity of unleash-server-8.2.0.tgz: a different tarball is refused.
const tarballIntegrity = 'sha512-Fw7n3zsp1/B8Vjz7hvTFFzRmDZzxMqI9hbpGGMfU9wksAIu1ofKTx2HK6XBwd2DgEqy3me4xVGjknngyxRIdPA=='

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const run = promisify(execFile)

const isWritableDir = (dir: string): boolean => {
  try {
    mkdirSync(dir, { recursive: true })
    accessSync(dir, constants.W_OK)
    return true
  } catch {
    return false
  }
}

// UNLEASH_UI_CACHE alone when set; else $XDG_CACHE_HOME/flagwright when set, else /var/cache/flagwright
// (where CI keeps its Node 24 root); where neither can be written, ~/.cache/flagwright, and last the
// repository's node_modules/.cache.
export const cacheRoots = (): string[] =>
  process.env.UNLEASH_UI_CACHE ? [process.env.UNLEASH_UI_CACHE] : [
    process.env.XDG_CACHE_HOME && path.join(process.env.XDG_CACHE_HOME, 'flagwright'),
    '/var/cache/flagwright',
    path.join(os.homedir(), '.cache', 'flagwright'),
    path.join(repoRoot, 'node_modules', '.cache', 'flagwright'),
  ].filter((dir): dir is string => !!dir)

const buildDirName = `unleash-ui-${unleashUiVersion}`
const isBuild = (dir: string) => existsSync(path.join(dir, 'index.html')) && existsSync(path.join(dir, 'static'))

export type UiBuild = { dir: string; fetched: boolean } | { missing: string }

// The build folder, fetched into the first writable cache when no cache has it yet.
export const unleashUiBuild = async (roots: string[] = cacheRoots()): Promise<UiBuild> => {
  for (const root of roots) if (isBuild(path.join(root, buildDirName))) return { dir: path.join(root, buildDirName), fetched: false }
  const root = roots.find(isWritableDir)
  if (!root) return { missing: `no writable cache folder (tried ${roots.join(', ')})` }
  const staging = mkdtempSync(path.join(root, `.${buildDirName}-`))
  try {
    const { stdout } = await run('npm', ['pack', `unleash-server@${unleashUiVersion}`, '--json', '--pack-destination', staging], {
      cwd: staging,
      // Within the test's own time: without a network npm would retry for minutes.
      timeout: 90_000,
      env: { ...process.env, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false', npm_config_fetch_retries: '1' },
    })
    const [packed] = JSON.parse(stdout) as { filename: string; integrity: string }[]
    if (packed?.integrity !== tarballIntegrity) return { missing: `npm pack unleash-server@${unleashUiVersion} gave a tarball with integrity ${packed?.integrity}, not ${tarballIntegrity}` }
    await run('tar', ['-xzf', path.join(staging, packed.filename), '-C', staging, 'package/frontend/build'], { timeout: 120_000 })
    const target = path.join(root, buildDirName)
    // A rename, so that a run cut short never leaves half a build where the next run looks.
    renameSync(path.join(staging, 'package', 'frontend', 'build'), target)
    return { dir: target, fetched: true }
  } catch (error) {
    const text = error instanceof Error ? ((error as { stderr?: string }).stderr || error.message) : String(error)
    const said = text.split('\n').filter((line) => line.trim() && !/complete log|npm help config/.test(line)).slice(0, 2).join(' / ')
    return { missing: `could not fetch unleash-server@${unleashUiVersion} with npm pack (no network?): ${said}` }
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
}

// What Unleash's own server does to index.html before serving it (its util/rewriteHTML): no base path,
// no CDN, no UI flags of its own configuration (the UI reads them from /api/admin/ui-config).
const rewriteIndexHtml = (html: string) =>
  html
    .replace(/::baseUriPath::/gi, '')
    .replace(/::cdnPrefix::/gi, '')
    .replace(/::faviconPrefix::/gi, '')
    .replace(/::uiFlags::/gi, encodeURI('{}'))
    .replace(/::unleashToken::/gi, '')

const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
}

// What goes to the API server; everything else is a file of the build or, for the UI's own routes, index.html.
const forwardedPrefixes = ['/api/', '/auth/', '/logout', '/health']
const isForwarded = (pathname: string) => forwardedPrefixes.some((prefix) => pathname === prefix.replace(/\/$/, '') || pathname.startsWith(prefix))

export interface UiProxy {
  url: string
  close(): Promise<void>
}

// Serves `buildDir` with the single-page fallback and forwards the API to `backend` (an origin), Host
// header and all: the server then sees the browser's Origin as its own, as behind any reverse proxy.
export const startUnleashUiProxy = async (buildDir: string, backend: string): Promise<UiProxy> => {
  const indexHtml = rewriteIndexHtml(readFileSync(path.join(buildDir, 'index.html'), 'utf8'))
  const target = new URL(backend)
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const upstream = httpRequest(
      { host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    upstream.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' })
      res.end(`proxy: ${error.message}`)
    })
    req.pipe(upstream)
  }
  const serveFile = (pathname: string, res: ServerResponse) => {
    const file = path.join(buildDir, path.normalize(decodeURIComponent(pathname)))
    const inside = file.startsWith(buildDir + path.sep) && existsSync(file) && statSync(file).isFile()
    if (!inside || path.basename(file) === 'index.html') {
      // A path of the UI itself (/projects/default): its router takes it from index.html.
      res.writeHead(200, { 'content-type': contentTypes['.html'], 'cache-control': 'no-store' })
      res.end(indexHtml)
      return
    }
    res.writeHead(200, { 'content-type': contentTypes[path.extname(file)] ?? 'application/octet-stream' })
    res.end(readFileSync(file))
  }
  const server: Server = createServer((req, res) => {
    const pathname = new URL(req.url ?? '/', 'http://proxy').pathname
    if (isForwarded(pathname)) return forward(req, res)
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405).end()
      return
    }
    try {
      serveFile(pathname, res)
    } catch {
      res.writeHead(400).end()
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

export interface UiCall {
  method: string
  // Path and query, as the UI asked.
  url: string
  status: number
  // Before sign-in, the UI asks who is signed in: Unleash answers those with 401s too.
  beforeSignIn: boolean
  // Why there was no answer (status 0).
  failure?: string
}

export interface CallRecorder {
  calls: UiCall[]
  // Uncaught page errors, and the crash reports the UI's error boundary sent (POST /api/admin/record-ui-error).
  crashes: string[]
  signedIn(): void
  // Waits until no forwarded call has been in flight for `quietMs`.
  quiet(quietMs?: number): Promise<void>
}

// Every call the page makes to what the proxy forwards, with its status.
export const recordCalls = (page: Page, origin: string): CallRecorder => {
  const calls: UiCall[] = []
  const crashes: string[] = []
  let beforeSignIn = true
  let inFlight = 0
  let lastChange = Date.now()
  const isForwardedCall = (url: string) => url.startsWith(origin) && isForwarded(new URL(url).pathname)
  const settled = (request: Request) => {
    if (!isForwardedCall(request.url())) return
    inFlight--
    lastChange = Date.now()
  }
  page.on('request', (request) => {
    if (!isForwardedCall(request.url())) return
    inFlight++
    lastChange = Date.now()
    if (request.method() === 'POST' && request.url().startsWith(`${origin}/api/admin/record-ui-error`)) {
      crashes.push(`the UI reported a crashed page: ${request.postData() ?? ''}`.slice(0, 2000))
    }
  })
  page.on('requestfinished', settled)
  // A call that was answered can still fail after: the UI aborts what a page it left was reading
  // (its fetches have an AbortController; against Unleash too). The answer is what counts.
  const answered = new WeakSet<Request>()
  page.on('requestfailed', (request) => {
    settled(request)
    if (!isForwardedCall(request.url()) || answered.has(request)) return
    calls.push({ method: request.method(), url: request.url().slice(origin.length), status: 0, beforeSignIn, failure: request.failure()?.errorText })
  })
  page.on('response', (response) => {
    if (!isForwardedCall(response.url())) return
    answered.add(response.request())
    calls.push({ method: response.request().method(), url: response.url().slice(origin.length), status: response.status(), beforeSignIn })
  })
  page.on('pageerror', (error) => crashes.push(`uncaught in the page: ${String(error).slice(0, 1000)}`))
  return {
    calls,
    crashes,
    signedIn: () => {
      beforeSignIn = false
    },
    quiet: async (quietMs = 300) => {
      while (inFlight > 0 || Date.now() - lastChange < quietMs) await page.waitForTimeout(50)
    },
  }
}

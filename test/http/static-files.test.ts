import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { gzipSync, brotliCompressSync } from 'node:zlib'
import t from 'tap'
import { loadStaticFiles, pickEncoding, staticRoutes } from '../../src/http/static-files.js'
import type { Request, Route } from '../../src/http/types.js'
import { DomainError } from '../../src/domain/errors.js'
import { startTestServer } from '../helpers/server.js'

const request = (params: Record<string, string>, headers: Record<string, string>): Request => ({
  method: 'GET',
  path: '/',
  params,
  query: new URLSearchParams(),
  header: (name) => headers[name],
  hasHeader: (name) => name in headers,
  body: undefined,
  remoteAddress: '127.0.0.1',
  clientAddress: '127.0.0.1',
  principal: undefined,
  authorize: () => {},
})

const fixture = (t: { teardown(fn: () => void): void }) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'static-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(path.join(dir, 'assets'))
  const js = Buffer.from('console.log("hello")')
  writeFileSync(path.join(dir, 'index.html'), '<!doctype html><title>x</title>')
  writeFileSync(path.join(dir, 'assets/app-ABC.js'), js)
  writeFileSync(path.join(dir, 'assets/app-ABC.js.gz'), gzipSync(js))
  writeFileSync(path.join(dir, 'assets/app-ABC.js.br'), brotliCompressSync(js))
  return { dir, js }
}

const route = (routes: Route[], routePath: string) => routes.find((r) => r.path === routePath)!

t.test('pickEncoding prefers brotli, then gzip, and honours q=0', async (t) => {
  const both = { gzip: Buffer.from('g'), br: Buffer.from('b') }
  t.equal(pickEncoding('gzip, deflate, br', both), 'br')
  t.equal(pickEncoding('gzip', both), 'gzip')
  t.equal(pickEncoding('br;q=0, gzip', both), 'gzip')
  t.equal(pickEncoding(undefined, both), undefined)
  t.equal(pickEncoding('br', { gzip: Buffer.from('g') }), undefined, 'no brotli copy, none accepted that exists')
})

t.test('assets are served with their precompressed copy and a year of caching; index.html is revalidated', async (t) => {
  const { dir, js } = fixture(t)
  const routes = staticRoutes(loadStaticFiles(dir))
  const asset = await route(routes, '/assets/:file').handler(request({ file: 'app-ABC.js' }, { 'accept-encoding': 'gzip, br' }))
  t.equal(asset.status, 200)
  t.equal(asset.headers?.['content-encoding'], 'br')
  t.equal(asset.headers?.['cache-control'], 'public, max-age=31536000, immutable')
  t.same(asset.body, brotliCompressSync(js))
  const plain = await route(routes, '/assets/:file').handler(request({ file: 'app-ABC.js' }, {}))
  t.same(plain.body, js, 'a client accepting no encoding gets the file itself')
  t.equal(plain.headers?.['content-encoding'], undefined)

  const index = await route(routes, '/').handler(request({}, {}))
  t.equal(index.headers?.['cache-control'], 'no-cache')
  t.match(index.headers?.['content-security-policy'], /default-src 'self'/)
  const again = await route(routes, '/').handler(request({}, { 'if-none-match': index.headers!.etag }))
  t.equal(again.status, 304, 'a matching If-None-Match is answered 304')
})

t.test('an unknown asset is a 404; an unbuilt UI registers no routes', async (t) => {
  const { dir } = fixture(t)
  const routes = staticRoutes(loadStaticFiles(dir))
  let thrown: unknown
  try {
    await route(routes, '/assets/:file').handler(request({ file: 'nope.js' }, {}))
  } catch (error) {
    thrown = error
  }
  t.ok(thrown instanceof DomainError && thrown.kind === 'NotFoundError', 'an unknown asset throws NotFoundError (404)')
  t.same(staticRoutes(loadStaticFiles(path.join(dir, 'missing'))), [])
})

t.test('the server serves the built UI at / and its bundle under /assets', async (t) => {
  const server = await startTestServer(t)
  const index = await fetch(`${server.baseUrl}/`)
  t.equal(index.status, 200)
  t.match(index.headers.get('content-type'), /^text\/html/)
  const html = await index.text()
  const script = /src="(\/assets\/app-[A-Z0-9]+\.js)"/.exec(html)?.[1]
  t.ok(script, 'index.html names a hashed bundle')
  const bundle = await fetch(`${server.baseUrl}${script}`, { headers: { 'accept-encoding': 'gzip' } })
  t.equal(bundle.status, 200)
  t.equal(bundle.headers.get('content-encoding'), 'gzip')
  t.match(await bundle.text(), /auth\/simple\/login/, 'the bundle is the UI (it signs in through the login route)')
})

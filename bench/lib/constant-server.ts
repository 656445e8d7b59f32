// The baseline: bare uWebSockets.js answering each configured path with constant bytes, a gzip copy
// when Accept-Encoding names gzip, and 304 for a matching If-None-Match. It marks the ceiling for
// a route that serves cached bytes: what is left to spend is routing, auth and the query.
// Run by startConstantServer(); CONSTANT_SERVER_ROUTES names a JSON file of ConstantRouteSpec.
import { readFileSync } from 'node:fs'
import type * as uWS from 'uWebSockets.js'
import { uwsBuild } from '../../src/http/uws.js'
import type { ConstantRouteSpec } from './child-server.js'

// The same native build the server under test loads (never a pure-JS fallback).
const { uws } = uwsBuild()

const specFile = process.env.CONSTANT_SERVER_ROUTES
if (!specFile) throw new Error('CONSTANT_SERVER_ROUTES is not set')
const specs = JSON.parse(readFileSync(specFile, 'utf8')) as ConstantRouteSpec[]

const app = uws.App()
for (const spec of specs) {
  const body = readFileSync(spec.bodyFile)
  const gzipBody = spec.gzipFile ? readFileSync(spec.gzipFile) : undefined
  const headers = Object.entries(spec.headers)
  const etag = spec.etag
  const handler = (res: uWS.HttpResponse, req: uWS.HttpRequest): void => {
    if (etag !== undefined && req.getHeader('if-none-match') === etag) {
      res.writeStatus('304 Not Modified').endWithoutBody(0)
      return
    }
    const gzip = gzipBody !== undefined && req.getHeader('accept-encoding').includes('gzip')
    const answer = () => {
      res.cork(() => {
        for (const [name, value] of headers) res.writeHeader(name, value)
        if (gzip) res.writeHeader('content-encoding', 'gzip')
        res.end(gzip ? gzipBody : body)
      })
    }
    if (spec.method !== 'POST') {
      answer()
      return
    }
    let aborted = false
    res.onAborted(() => {
      aborted = true
    })
    res.onData((_chunk, isLast) => {
      if (isLast && !aborted) answer()
    })
  }
  if (spec.method === 'POST') app.post(spec.path, handler)
  else app.get(spec.path, handler)
}
app.any('/*', (res) => {
  res.writeStatus('404 Not Found').end()
})
app.listen('127.0.0.1', 0, (listenSocket) => {
  if (!listenSocket) {
    console.error('could not listen')
    process.exit(1)
  }
  console.log(`listening on http://127.0.0.1:${uws.us_socket_local_port(listenSocket as unknown as uWS.us_socket)}`)
})

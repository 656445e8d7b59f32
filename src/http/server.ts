import net from 'node:net'
import type * as uWS from 'uWebSockets.js'
import { DomainError, badData } from '../domain/errors.js'
import { authenticate, authorize, secretFrom } from './auth.js'
import { forwardedClient } from './client-address.js'
import { anyHostOrigin, crossOriginRefusal, type OriginPolicy } from './cross-origin.js'
import { errorReply, statusLine, statusLineBytes, unexpectedErrorReply } from './errors.js'
import { etagHash, weakEtag } from './etag.js'
import { parseJsonBody } from './json-body.js'
import { fixedHeaders, headerBytes } from './fixed-headers.js'
import type { RequestMetrics, RouteSlots } from './request-metrics.js'
import { Router, isExact, noParams } from './router.js'
import type { Authenticator, Method, OpenStream, Principal, Reply, Request, Route } from './types.js'
import { uwsBuild, type UwsBuild } from './uws.js'

type Log = (message: string, error?: unknown) => void

export interface HttpOptions {
  host: string
  port: number
  maxBodyBytes: number
  log?: Log
  metrics?: RequestMetrics
  // Where browsers' writes without a token may come from (default: the origin the Host header names).
  origins?: OriginPolicy
  // Proxies in front whose X-Forwarded-For entries name the client (default 0: the socket's address does).
  trustProxy?: number
}

export interface HttpServer {
  port: number
  // The native uWebSockets.js build that serves (src/http/uws.ts).
  build: Pick<UwsBuild, 'name' | 'version'>
  // The port is taken before anything else starts; until then every request is answered 503.
  serve(routes: Route[], authenticator: Authenticator): void
  // Stops listening, answers 503 to requests on open connections, waits for the requests in flight
  // (a write is answered after its commit), then closes every connection.
  close(): Promise<void>
}

// Compared one by one: a Set would hash the method's fresh string on every request.
const isMethod = (verb: string) => verb === 'GET' || verb === 'POST' || verb === 'PUT' || verb === 'PATCH' || verb === 'DELETE'
// Methods are case-sensitive (RFC 9110): the method is read as sent, and `get` or `PROPFIND` is a 405
// like any method no route has. (uWS 20.30 closes such connections before a route sees them; see
// README, "Limits of the HTTP layer".) getMethod() is never called: it lower-cases in place.
const printableMethod = (sent: string): string => sent.replace(/[^\x21-\x7e]/g, '?').slice(0, 40)
// Read straight from uWS (an empty header is a missing one, as in HttpRequest.header()), and only for
// the routes that answer with CORS headers: it is needed before there is a request to read it from.
const originOf = (req: uWS.HttpRequest): string => req.getHeader(originKey) || '*'

// uWS.js turns every string argument into UTF-8 in a buffer it allocates (V8's String::Utf8Value) and
// takes a Buffer's bytes as they are: the names the server reads on every request, the status lines and
// the headers of replies made once (fixed-headers.ts) go to it as Buffers, made once. About 30 ns per
// argument (measured with wrk on bare uWS: 17 string arguments cost 0.55 µs more than the same as Buffers).
const originKey = Buffer.from('origin')
const authorizationKey = Buffer.from('authorization')
const contentTypeKey = Buffer.from('content-type')
const contentLengthKey = Buffer.from('content-length')
const cookieKey = Buffer.from('cookie')
const maxHeaderKeys = 256
const headerKeys = new Map<string, Buffer>()
const headerKey = (name: string): Buffer | string => {
  let key = headerKeys.get(name)
  if (key === undefined) {
    if (headerKeys.size >= maxHeaderKeys) return name
    headerKeys.set(name, (key = Buffer.from(name)))
  }
  return key
}
const contentTypeJson = Buffer.from('content-type')
const applicationJson = Buffer.from('application/json; charset=utf-8')
const corsAllowHeaders = 'Authorization, Content-Type, If-None-Match, Unleash-AppName, Unleash-InstanceId, Unleash-SDK, Unleash-Connection-Id, Unleash-Interval, Unleash-Client-Spec, X-Unleash-Version'

// Admin reads carry an ETag of their JSON body, so a page that polls them (the web UI) gets a bodiless
// 304 while nothing changed. Replies that set their own ETag, or are not JSON, are left alone.
export { parseJsonBody }

export const withEtag = (reply: Reply, ifNoneMatch: string | undefined): Reply => {
  if (reply.pieces !== undefined) return reply.status === 200 && ifNoneMatch !== undefined && ifNoneMatch === reply.headers?.etag ? { status: 304, headers: reply.headers } : reply
  if (reply.status !== 200 || reply.body === undefined || Buffer.isBuffer(reply.body) || typeof reply.body === 'string' || reply.headers?.etag) return reply
  const payload = JSON.stringify(reply.body)
  const etag = weakEtag(etagHash().update(payload))
  const headers = { ...reply.headers, etag, 'content-type': reply.headers?.['content-type'] ?? 'application/json; charset=utf-8' }
  if (ifNoneMatch === etag) return { status: 304, headers }
  return { status: 200, headers, body: payload }
}

class TooLarge extends DomainError {
  constructor(limit: number) {
    super('PayloadTooLargeError', `The request body is larger than the limit of ${limit} bytes.`)
  }
}

const stopGraceMs = 5000

// Every request that arrives while the server stops: 503, and the connection is closed after it.
class ShuttingDown extends DomainError {
  constructor() {
    super('ServiceUnavailableError', 'The server is shutting down.')
  }
}

// The body as text, handed to `done` inside uWS's last data callback (or the error, once). uWS reuses a
// chunk's memory after its callback returns: a body in one chunk (an SDK's) is decoded from it at once,
// with no copy of its bytes. A longer one is copied as it comes into one buffer that doubles as it fills,
// from 64 KiB up to its declared length (Content-Length), or up to the limit when it declared none or
// sends more: an import of 2 MB takes six allocations, where a copy of each chunk (about 16 KiB) and then
// one of them all took a hundred. It grows with what arrived, not with what was declared, so a client that
// declares megabytes and sends a byte holds 64 KiB.
// A TextDecoder reads the ArrayBuffer uWS lends without a Buffer made around it (about 60 ns less than
// Buffer.from(chunk).toString()), and like toString() it keeps a byte order mark and replaces bytes that
// are not UTF-8.
const utf8 = new TextDecoder('utf-8', { ignoreBOM: true })
const firstRoomBytes = 64 * 1024
const readBody = (
  res: uWS.HttpResponse,
  limit: number,
  declaredLength: number,
  done: (error: DomainError | undefined, text: string) => void,
): void => {
  let whole: Buffer | undefined
  let size = 0
  let finished = false
  res.onData((chunk, isLast) => {
    if (finished) return
    const start = size
    size += chunk.byteLength
    if (size > limit) {
      finished = true
      done(new TooLarge(limit), '')
      return
    }
    if (start === 0 && isLast) {
      finished = true
      done(undefined, utf8.decode(chunk))
      return
    }
    if (whole === undefined || size > whole.length) {
      const most = Number.isSafeInteger(declaredLength) && size <= declaredLength ? declaredLength : limit
      const room = Buffer.allocUnsafeSlow(Math.min(most, Math.max(size, 2 * (whole?.length ?? 0), firstRoomBytes)))
      whole?.copy(room, 0, 0, start)
      whole = room
    }
    whole.set(new Uint8Array(chunk), start)
    if (!isLast) return
    finished = true
    done(undefined, utf8.decode(whole.subarray(0, size)))
  })
}

const contentTypeError = (contentType: string | undefined) =>
  new DomainError(
    'ContentTypeError',
    `We do not accept the content-type you provided (${contentType ? contentType.slice(0, 100) : "you didn't provide one"}). Try using one of the content-types we do accept instead (application/json) and make sure the body is in the corresponding format.`,
  )

// Shared by every request without a query string, so it refuses to change.
class NoQuery extends URLSearchParams {
  override append(): never {
    throw new Error('a request query is read-only')
  }
  override set(): never {
    throw new Error('a request query is read-only')
  }
  override delete(): never {
    throw new Error('a request query is read-only')
  }
  override sort(): never {
    throw new Error('a request query is read-only')
  }
  // What an empty query answers, without the base class's checks (SDK polls ask has('at') and get()).
  override has(): boolean {
    return false
  }
  override get(): null {
    return null
  }
  override getAll(): string[] {
    return []
  }
}
const noQuery = new NoQuery()
// And its size, which a subclass cannot override as an accessor: an own property shadows the prototype's.
Object.defineProperty(noQuery, 'size', { value: 0 })

const notKept = (name: string) => new Error(`the request header "${name}" was not kept for this route: name it in the route's keepHeaders`)

let collectInto: Record<string, string> = {}
// A header sent on several lines is one list, its lines joined in order (RFC 9110, 5.3): a proxy may add
// an X-Forwarded-For line of its own after the client's. Cookie lines join as one cookie string.
const collectHeader = (name: string, value: string) => {
  const before = collectInto[name]
  collectInto[name] = before === undefined ? value : `${before}${name === 'cookie' ? '; ' : ', '}${value}`
}

// A class, not an object literal: V8 pretenures a literal's allocation site once most objects made there
// outlive a scavenge (as a write's state does, waiting for its commit), and every later request's state,
// a 304's too, would then be allocated in old space and live until a mark-compact. Instances of a class
// are always allocated young.
class RequestState {
  aborted = false
  // Set by an open stream, to learn that its client left.
  onAbort: (() => void) | undefined = undefined
  // Whether an onAborted handler is registered: only for requests answered after their uWS callback.
  watched = false
  // The latency slots of the route it matched.
  slots: RouteSlots | undefined = undefined
  // performance.now() when the request arrived.
  constructor(readonly started: number) {}
}

// A response answered after its uWS callback must have an abort handler (uWS requires one), registered once:
// it marks the state aborted and tells whoever listens (a stream, a large body being sent).
const watchAbort = (res: uWS.HttpResponse, state: RequestState): void => {
  if (state.watched) return
  state.watched = true
  res.onAborted(() => {
    state.aborted = true
    state.onAbort?.()
  })
}

// One per request, with its getters and authorize() on the prototype: a request allocates no closures,
// reads and parses its query string only when a route reads it and its address only when a route asks
// for it. Headers are read from uWS one by one while its callback runs (an SDK poll reads three of a
// dozen); a request answered later has them copied first (answerLater()), since uWS's request dies with
// the callback: every one, or the few its route names (Route.keepHeaders).
class HttpRequest implements Request {
  body: unknown = undefined
  bodyText: string | undefined = undefined
  #query: URLSearchParams | undefined
  #rawQuery: string | undefined
  #remoteAddress: string | undefined
  #clientAddress: string | undefined
  #headers: Record<string, string> | undefined
  // Set when only these headers were kept.
  #kept: readonly string[] | undefined

  constructor(
    readonly method: Method,
    readonly path: string,
    readonly params: Record<string, string>,
    private readonly uwsRequest: uWS.HttpRequest,
    readonly principal: Principal | undefined,
    private readonly res: uWS.HttpResponse,
    private readonly state: RequestState,
    private readonly trustedProxies: number,
  ) {}

  // uWS answers '' for a missing header, an empty one and one that is not UTF-8 alike; only copying
  // every header tells them apart, which hasHeader() does for the rare route that needs to.
  header(name: string): string | undefined {
    if (this.#kept !== undefined && !this.#kept.includes(name)) throw notKept(name)
    const value = this.#headers === undefined ? this.uwsRequest.getHeader(headerKey(name)) : this.#headers[name]
    return value === '' ? undefined : value
  }

  hasHeader(name: string): boolean {
    if (this.#kept !== undefined) throw notKept(name)
    this.keepHeaders()
    return Object.hasOwn(this.#headers!, name)
  }

  // Called before the uWS callback returns, for a request answered after it (a body, a promise, a stream):
  // what is read from uWS is copied now, since its request dies with the callback and the connection may
  // close before the answer, and an abort is watched for (uWS requires a handler then; a request answered
  // inside the callback cannot meet an aborted connection and registers none). With `keep`, only those
  // headers are copied. The address belongs to the response, not the request: it is read when the route
  // asks (before it answers; '' once aborted), which an admin write never does.
  answerLater(keep?: readonly string[]): RequestState {
    this.#rawQuery ??= this.uwsRequest.getQuery() ?? ''
    // X-Forwarded-For is read joined from all its lines, which only copying every header does.
    if (keep === undefined || this.trustedProxies > 0) this.keepHeaders()
    else if (this.#headers === undefined) {
      const headers: Record<string, string> = {}
      for (const name of keep) headers[name] = this.uwsRequest.getHeader(headerKey(name))
      this.#headers = headers
      this.#kept = keep
    }
    watchAbort(this.res, this.state)
    return this.state
  }

  private keepHeaders(): void {
    if (this.#headers !== undefined) return
    const headers: Record<string, string> = {}
    collectInto = headers
    this.uwsRequest.forEach(collectHeader)
    this.#headers = headers
  }

  get query(): URLSearchParams {
    if (this.#query === undefined) {
      const raw = (this.#rawQuery ??= this.uwsRequest.getQuery() ?? '')
      this.#query = raw === '' ? noQuery : new URLSearchParams(raw)
    }
    return this.#query
  }

  // An aborted response may no longer be read; nothing is sent to its caller anyway.
  get remoteAddress(): string {
    return (this.#remoteAddress ??= this.state.aborted ? '' : Buffer.from(this.res.getRemoteAddressAsText()).toString())
  }

  get clientAddress(): string {
    if (this.trustedProxies === 0) return this.remoteAddress
    if (this.#clientAddress === undefined) {
      this.keepHeaders()
      this.#clientAddress = forwardedClient(this.remoteAddress, this.#headers!['x-forwarded-for'], this.trustedProxies)
    }
    return this.#clientAddress
  }

  authorize(permission: string | string[], project?: string, environment?: string): void {
    authorize(this.principal, permission, project, environment)
  }
}

// Corked around nothing: uncorking sends what uWS holds for the socket and adds nothing to it.
const nothing = () => {}

// The head goes out at once; writes from outside a uWS callback must be corked. What the socket does not
// take, uWS keeps in memory and reports as a false write(); once onWritable is registered it no longer
// sends that by itself when the socket drains, only when the response is written to again, so the
// handler writes the drain probe, or corks nothing.
// The handler must return a boolean and must not throw: uWS.js exits the process otherwise.
const openStream = (res: uWS.HttpResponse, state: RequestState, reply: Reply, extraHeaders: Record<string, string> | undefined, log: Log) => {
  const listeners: (() => void)[] = []
  const drainListeners: (() => void)[] = []
  let closed = false
  // Bytes written since the last write the socket took whole.
  let held = 0
  const probe = reply.drainProbe
  const finish = () => {
    if (closed) return
    closed = true
    for (const listener of listeners) listener()
  }
  state.onAbort = finish
  const write = (chunk: string | Buffer): boolean => {
    if (closed || state.aborted) return false
    let taken = false
    res.cork(() => {
      taken = res.write(chunk)
    })
    held = taken ? 0 : held + (typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length)
    return taken
  }
  const stream: OpenStream = {
    write,
    get buffered() {
      return held
    },
    onDrain: (listener) => void drainListeners.push(listener),
    close: () => {
      if (closed) return
      if (!state.aborted) {
        if (held > 0) res.close()
        else res.cork(() => res.end())
      }
      finish()
    },
    get closed() {
      return closed || state.aborted
    },
    onClose: (listener) => {
      if (closed) listener()
      else listeners.push(listener)
    },
  }
  res.onWritable(() => {
    if (closed || state.aborted) return true
    if (held === 0 || probe === undefined) {
      res.cork(nothing)
      return true
    }
    if (!write(probe)) return true
    for (const listener of drainListeners) {
      if (stream.closed || held > 0) break
      try {
        listener()
      } catch (error) {
        log('a stream failed to catch up after it drained; closing it', error)
        stream.close()
      }
    }
    return true
  })
  res.cork(() => {
    res.writeStatus(statusLine(reply.status))
    const headers = { ...extraHeaders, ...reply.headers }
    for (const name in headers) res.writeHeader(name, headers[name])
    // uWS sends the head with the first write; an empty one sends it now.
    res.write('')
  })
  reply.stream!(stream)
}

// Whether a reply's own headers name none of the extra ones (made by fixedHeaders). The last pair of
// frozen ones is remembered: a route answers its callers with the same two (a cached answer's, the CORS ones).
let lastExtra: Record<string, string> | undefined
let lastOwn: Record<string, string> | undefined
const disjoint = (extra: Record<string, string>, names: readonly string[], own: Record<string, string> | undefined): boolean => {
  if (own === undefined) return true
  if (extra === lastExtra && own === lastOwn) return true
  for (const name of names) if (own[name] !== undefined) return false
  if (headerBytes(own) !== undefined) {
    lastExtra = extra
    lastOwn = own
  }
  return true
}

// Headers are written from both objects in turn (the reply's win), without merging them per response.
const writeReply = (
  res: uWS.HttpResponse,
  reply: Reply,
  extraHeaders: Record<string, string> | undefined,
  json: boolean,
  payload: Buffer | string,
  closeConnection: boolean,
) => {
  writeHead(res, reply, extraHeaders, json)
  if (reply.status === 304 || reply.status === 204) res.endWithoutBody(0, closeConnection)
  else res.end(payload, closeConnection)
}

const writeHead = (res: uWS.HttpResponse, reply: Reply, extraHeaders: Record<string, string> | undefined, json: boolean) => {
  const own = reply.headers
  // uWS writes "200 OK" itself when no status was written.
  if (reply.status !== 200) res.writeStatus(statusLineBytes(reply.status))
  if (extraHeaders !== undefined) {
    const extra = headerBytes(extraHeaders)
    if (extra !== undefined) {
      if (disjoint(extraHeaders, extra.names, own)) {
        if (extra.block !== undefined) res.writeHeader(extra.block[0], extra.block[1])
      } else {
        const { names, bytes } = extra
        for (let i = 0; i < names.length; i++) if (own?.[names[i]] === undefined) res.writeHeader(bytes[2 * i], bytes[2 * i + 1])
      }
    } else for (const name in extraHeaders) if (own?.[name] === undefined) res.writeHeader(name, extraHeaders[name])
  }
  if (own !== undefined) {
    const block = headerBytes(own)?.block
    if (block !== undefined) res.writeHeader(block[0], block[1])
    else for (const name in own) res.writeHeader(name, own[name])
  }
  if (json) res.writeHeader(contentTypeJson, applicationJson)
}

// A body at least this long is handed to uWS as the socket takes it, not whole: end() copies what the
// socket does not take at once into a buffer of uWS's own and sends from there as the socket drains,
// which grows faster than the body (bare uWS sending 16.9 MB with end(): 3.9-4.4 ms of CPU, 16-20x
// one of 1.7 MB; this server sending it with tryEnd: 2.0 ms).
const largeBody = 1 << 20

// What a large answer writes in one turn of the event loop when its client takes all it is given.
const bytesPerTurn = 4 << 20

// tryEnd() writes only what the socket takes and keeps nothing; uWS asks for the rest (onWritable) from
// the offset it reached. The body (one Buffer, or a reply's pieces in order) is held, not copied, until
// all of it is written or the client has gone.
const endInPieces = (res: uWS.HttpResponse, state: RequestState, reply: Reply, extraHeaders: Record<string, string> | undefined, pieces: readonly Buffer[]) => {
  let total = 0
  for (const piece of pieces) total += piece.length
  // The piece the connection is in, and where it starts in the body.
  let at = 0
  let atOffset = 0
  // Writes from `offset` on, piece after piece while the connection takes them whole, at most about
  // bytesPerTurn: a client reading as fast as they are written (on the same machine) would have
  // had all of a 106 MB list copied in one turn of the event loop. The rest follows on the next turn.
  const writeFrom = (offset: number): boolean => {
    while (at < pieces.length - 1 && atOffset + pieces[at].length <= offset) atOffset += pieces[at++].length
    let written = 0
    for (;;) {
      const chunk = pieces[at].subarray(offset - atOffset)
      const [taken, done] = res.tryEnd(chunk, total)
      if (done) finish()
      if (done || !taken || at === pieces.length - 1) return taken
      written += chunk.length
      offset = atOffset += pieces[at++].length
      if (written >= bytesPerTurn) {
        setImmediate(writeOn)
        return true
      }
    }
  }
  // On from where the connection is, outside uWS's callbacks (it asks for nothing: none of this was refused).
  const writeOn = () => {
    if (finished || state.aborted) return
    res.cork(() => void writeFrom(res.getWriteOffset()))
  }
  // Inside its uWS callback a response is corked already; one answered later (watched) is not.
  const corked = !state.watched
  let finished = false
  const finish = () => {
    if (finished) return
    finished = true
    reply.release?.()
  }
  watchAbort(res, state)
  state.onAbort = finish
  // A handler of uWS's must return a boolean and must not throw (uWS.js exits the process otherwise).
  res.onWritable((offset) => {
    if (finished || state.aborted) return true
    let ok = false
    res.cork(() => {
      ok = writeFrom(offset)
    })
    return ok
  })
  const first = () => {
    writeHead(res, reply, extraHeaders, false)
    writeFrom(0)
  }
  if (corked) first()
  else res.cork(first)
}

// The headers a CORS route answers with, per Origin sent: browsers on a site send the same one, and the
// objects are shared by every answer (frozen: none may change another's).
const maxCorsOrigins = 100
const corsHeaders = new Map<string, Record<string, string>>()
// The last Origin is compared before the map is asked (which would hash the fresh header string).
let lastOrigin = ''
let lastCorsHeaders: Record<string, string> | undefined
const corsHeadersFor = (origin: string): Record<string, string> => {
  if (origin === lastOrigin && lastCorsHeaders !== undefined) return lastCorsHeaders
  let headers = corsHeaders.get(origin)
  if (headers === undefined) {
    headers = fixedHeaders({ 'access-control-allow-origin': origin, 'access-control-expose-headers': 'ETag', vary: 'Origin' })
    if (corsHeaders.size < maxCorsOrigins) corsHeaders.set(origin, headers)
  }
  lastOrigin = origin
  lastCorsHeaders = headers
  return headers
}

// The request being handled, for the authenticator's cookie reader (no closure per request).
let current: uWS.HttpRequest
const readCookie = () => current.getHeader(cookieKey) || undefined

const hasBody = (method: Method) => method === 'POST' || method === 'PUT' || method === 'PATCH'

export const startHttpServer = (options: HttpOptions): Promise<HttpServer> => {
  let build: UwsBuild
  try {
    build = uwsBuild()
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)))
  }
  const uws = build.uws
  const log: Log = options.log ?? ((message, error) => console.error(message, error ?? ''))
  let serving: { router: Router; corsPaths: Router; authenticator: Authenticator } | undefined
  const app = uws.App()
  const metrics = options.metrics
  const origins = options.origins ?? anyHostOrigin
  const trustedProxies = options.trustProxy ?? 0
  const unmatched = metrics?.slotsFor(undefined)

  const send = (res: uWS.HttpResponse, state: RequestState, reply: Reply, extraHeaders: Record<string, string> | undefined, closeConnection = false) => {
    if (state.aborted) {
      reply.release?.()
      return
    }
    if (reply.stream) return openStream(res, state, reply, extraHeaders, log)
    if (reply.pieces !== undefined && reply.pieces.length > 0 && reply.status === 200) {
      endInPieces(res, state, reply, extraHeaders, reply.pieces)
      if (metrics) metrics.record(state.slots ?? unmatched!, reply.status, (performance.now() - state.started) / 1000)
      return
    }
    const body = reply.body
    const serialised = body !== undefined && !Buffer.isBuffer(body) && typeof body !== 'string'
    const payload = body === undefined ? '' : serialised ? JSON.stringify(body) : (body as Buffer | string)
    const json = serialised && !reply.headers?.['content-type'] && !extraHeaders?.['content-type']
    if (Buffer.isBuffer(payload) && payload.length >= largeBody && !closeConnection && reply.status !== 304 && reply.status !== 204) {
      endInPieces(res, state, reply, extraHeaders, [payload])
      if (metrics) metrics.record(state.slots ?? unmatched!, reply.status, (performance.now() - state.started) / 1000)
      return
    }
    // Inside its uWS callback a response is corked already; one answered later (watched) is not.
    if (state.watched) res.cork(() => writeReply(res, reply, extraHeaders, json, payload, closeConnection))
    else writeReply(res, reply, extraHeaders, json, payload, closeConnection)
    // uWS has sent the body or copied what the socket could not take yet.
    reply.release?.()
    if (metrics) metrics.record(state.slots ?? unmatched!, reply.status, (performance.now() - state.started) / 1000)
  }

  // Requests answered after their uWS callback (bodies, commits): a stop waits for them.
  let inFlight = 0
  let stopping = false
  let allSettled: (() => void) | undefined
  const settled = () => {
    inFlight--
    if (inFlight === 0) allSettled?.()
  }

  // A reply that came back from its handler, at once or as a promise; `settled` once it has been sent.
  const answer = (res: uWS.HttpResponse, state: RequestState, reply: Reply | Promise<Reply>, cors: Record<string, string> | undefined) => {
    if (reply instanceof Promise) {
      reply
        .then((r) => send(res, state, r, cors))
        .catch((e: unknown) => sendError(res, state, e, cors))
        .finally(settled)
      return
    }
    try {
      send(res, state, reply, cors)
    } catch (error) {
      sendError(res, state, error, cors)
    }
    settled()
  }

  // A route with a body: its handler runs in uWS's last data callback, with the body parsed. The headers
  // read here are read while the uWS request is alive.
  const handleBody = (res: uWS.HttpResponse, req: uWS.HttpRequest, request: HttpRequest, route: Route, cors: Record<string, string> | undefined) => {
    const contentType = req.getHeader(contentTypeKey) || undefined
    const declaredLength = Number(req.getHeader(contentLengthKey) || '0')
    const state = request.answerLater(route.keepHeaders)
    inFlight++
    if (declaredLength > options.maxBodyBytes) {
      sendError(res, state, new TooLarge(options.maxBodyBytes), cors)
      settled()
      return
    }
    readBody(res, options.maxBodyBytes, declaredLength, (tooLarge, text) => {
      let reply: Reply | Promise<Reply>
      try {
        if (tooLarge) throw tooLarge
        if (text.length > 0 && !(contentType ?? '').toLowerCase().includes('json')) throw contentTypeError(contentType)
        request.bodyText = text
        if (!route.bodyText) request.body = parseJsonBody(text)
        reply = route.handler(request)
      } catch (error) {
        sendError(res, state, error, cors)
        settled()
        return
      }
      answer(res, state, reply, cors)
    })
  }

  const sendError = (res: uWS.HttpResponse, state: RequestState, error: unknown, cors: Record<string, string> | undefined) => {
    if (error instanceof DomainError) {
      send(res, state, errorReply(error), cors, error instanceof TooLarge || error instanceof ShuttingDown)
      return
    }
    log('unexpected error while handling a request', error)
    send(res, state, unexpectedErrorReply(), cors)
  }

  // A request once its route is known, found by uWS (a path without parameters) or by the router.
  const serveRoute = (res: uWS.HttpResponse, req: uWS.HttpRequest, state: RequestState, method: Method, path: string, route: Route, params: Record<string, string>) => {
    let cors: Record<string, string> | undefined
    try {
      cors = route.cors ? corsHeadersFor(originOf(req)) : undefined
      const authorization = req.getHeader(authorizationKey) || undefined
      current = req
      const principal = authenticate(route.access, authorization, readCookie, serving!.authenticator, route.adminToo)
      // A write without a token is a session's or a sign-in's: a browser may have made it for another page.
      if (method !== 'GET' && secretFrom(authorization) === undefined) {
        const refusal = crossOriginRefusal(origins, req.getHeader('origin') || undefined, req.getHeader('sec-fetch-site') || undefined, req.getHeader('host') || undefined)
        if (refusal) throw refusal
      }
      // Unleash checks permissions before it looks at the body.
      if (route.permission) authorize(principal, route.permission, params.projectId, params.environment)
      const request = new HttpRequest(method, path, params, req, principal, res, state, trustedProxies)
      if (route.body && hasBody(method)) {
        handleBody(res, req, request, route, cors)
        return
      }
      // Most reads answer synchronously, inside this uWS callback, with no promise in between.
      const reply = route.handler(request)
      // Admin reads carry an ETag (the UI polls them); SDK routes set their own.
      const etagged = route.access === 'admin' && method === 'GET'
      if (reply instanceof Promise) {
        const later = request.answerLater()
        inFlight++
        reply
          .then((r) => send(res, later, etagged ? withEtag(r, request.header('if-none-match')) : r, cors), (e) => sendError(res, later, e, cors))
          .finally(settled)
      } else if (reply.stream) {
        send(res, request.answerLater(), reply, cors)
      } else send(res, state, etagged ? withEtag(reply, request.header('if-none-match')) : reply, cors)
    } catch (error) {
      // A refused browser request still needs CORS headers, or the page sees a CORS failure, not the 401.
      sendError(res, state, error, cors)
    }
  }

  // A route without parameters is given to uWS for its exact path and method: uWS matches it as it
  // parses the request, and its handler reads neither the method nor the path (two strings made per
  // request) nor asks the router. Every other request (HEAD, a trailing slash, OPTIONS, parameters, a
  // path no route has) comes to app.any below.
  const exactRoute = (route: Route) => {
    const slots = metrics?.slotsFor(route)
    return (res: uWS.HttpResponse, req: uWS.HttpRequest) => {
      const state = new RequestState(metrics ? performance.now() : 0)
      if (stopping) {
        sendError(res, state, new ShuttingDown(), undefined)
        return
      }
      state.slots = slots
      serveRoute(res, req, state, route.method, route.path, route, noParams)
    }
  }
  const onMethod = { GET: app.get, POST: app.post, PUT: app.put, PATCH: app.patch, DELETE: app.del } satisfies Record<Method, unknown>

  app.any('/*', (res, req) => {
    const state = new RequestState(metrics ? performance.now() : 0)
    const verb = req.getCaseSensitiveMethod()
    const path = req.getUrl()
    try {
      if (!serving) throw new DomainError('ServiceUnavailableError', 'The server is starting; try again in a moment.')
      if (stopping) throw new ShuttingDown()
      const { router, corsPaths } = serving
      if (verb === 'OPTIONS') {
        const corsMatch = corsPaths.match('GET', path)
        if (corsMatch.kind === 'found') {
          send(res, state, { status: 204 }, {
            'access-control-allow-origin': originOf(req),
            'access-control-allow-methods': 'GET, POST, OPTIONS',
            'access-control-allow-headers': req.getHeader('access-control-request-headers') || corsAllowHeaders,
            'access-control-max-age': '86400',
            vary: 'Origin',
          })
          return
        }
        send(res, state, { status: 204, headers: { allow: 'GET, POST, PUT, PATCH, DELETE' } }, undefined)
        return
      }
      const method = (verb === 'HEAD' ? 'GET' : verb) as Method
      if (!isMethod(method)) throw new DomainError('NotImplementedError', `The method ${printableMethod(verb)} is not supported.`)
      const match = router.match(method, path)
      if (match.kind === 'not-found') throw new DomainError('NotFoundError', `The path you were looking for (${path.slice(0, 200)}) is not available.`)
      if (match.kind === 'method-not-allowed') {
        throw new DomainError('NotImplementedError', `The method ${verb} is not allowed on this path; allowed: ${match.allowed.join(', ')}.`)
      }
      if (metrics) state.slots = metrics.slotsFor(match.route)
      serveRoute(res, req, state, method, path, match.route, match.params)
    } catch (error) {
      sendError(res, state, error, undefined)
    }
  })

  return new Promise((resolve, reject) => {
    // uWS shares ports (SO_REUSEPORT) unless told otherwise: a second server would split the traffic.
    const exclusivePort = 1
    // The typings lack the (host, port, options, cb) form that the native listen takes.
    const listen = app.listen as unknown as (
      this: uWS.TemplatedApp, host: string, port: number, options: number, cb: (socket: uWS.us_listen_socket | false) => void,
    ) => uWS.TemplatedApp
    listen.call(app, options.host, options.port, exclusivePort, (listenSocket) => {
      if (!listenSocket) {
        void whyListenFailed(options.host, options.port).then((reason) => reject(new Error(`could not listen on ${options.host}:${options.port}: ${reason}`)))
        return
      }
      resolve({
        build: { name: build.name, version: build.version },
        port: uws.us_socket_local_port(listenSocket as unknown as uWS.us_socket),
        serve: (routes, authenticator) => {
          const corsRoutes = routes.filter((r) => r.cors).map((r) => ({ ...r, method: 'GET' as Method }))
          serving = {
            router: new Router(routes),
            corsPaths: new Router(corsRoutes.filter((r, i) => corsRoutes.findIndex((o) => o.path === r.path) === i)),
            authenticator,
          }
          for (const route of routes) if (isExact(route.path)) onMethod[route.method].call(app, route.path, exactRoute(route))
        },
        close: async () => {
          if (stopping) return
          stopping = true
          uws.us_listen_socket_close(listenSocket)
          // A client that never finishes sending its body must not hold the stop: past the grace, its
          // connection is closed with the rest.
          // The grace timer keeps the process alive: a stop still has its snapshots to write after it.
          if (inFlight > 0) await new Promise<void>((resolve) => {
            const grace = setTimeout(resolve, stopGraceMs)
            allSettled = () => {
              clearTimeout(grace)
              resolve()
            }
          })
          // Closes every connection (both builds have it; 20.30's typings lacked it).
          app.close()
        },
      })
    })
  })
}

// uWS reports only that listening failed; Node's own listen tells why (address in use, permission, ...).
const whyListenFailed = (host: string, port: number): Promise<string> =>
  new Promise((resolve) => {
    const probe = net.createServer()
    probe.once('error', (error: NodeJS.ErrnoException) =>
      resolve(error.code === 'EADDRINUSE' ? 'address in use (is another server running on this port?)' : `${error.code ?? ''} ${error.message}`.trim()),
    )
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve('the port could not be taken')))
  })

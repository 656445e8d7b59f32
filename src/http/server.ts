import net from 'node:net'
import uWS from 'uWebSockets.js'
import { DomainError, badData } from '../domain/errors.js'
import { authenticate, authorize } from './auth.js'
import { errorReply, statusLine, unexpectedErrorReply } from './errors.js'
import type { LatencySlot, RequestMetrics } from './request-metrics.js'
import { Router } from './router.js'
import type { Authenticator, Method, Reply, Request, Route } from './types.js'

export interface HttpOptions {
  host: string
  port: number
  maxBodyBytes: number
  allowFallback: boolean
  log?: (message: string, error?: unknown) => void
  metrics?: RequestMetrics
}

interface RequestState {
  aborted: boolean
  // performance.now() when the request arrived, and the latency slots of the route it matched.
  started: number
  slots: Map<number, LatencySlot> | undefined
}

export interface HttpServer {
  port: number
  // The port is taken before anything else starts; until then every request is answered 503.
  serve(routes: Route[], authenticator: Authenticator): void
  close(): void
}

const methods = new Set<string>(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
const corsAllowHeaders = 'Authorization, Content-Type, If-None-Match, Unleash-AppName, Unleash-InstanceId, Unleash-SDK, Unleash-Connection-Id, Unleash-Interval, Unleash-Client-Spec, X-Unleash-Version'

export const isNativeUws = (): boolean => String(uWS.App).includes('[native code]')

class TooLarge extends DomainError {
  constructor(limit: number) {
    super('PayloadTooLargeError', `The request body is larger than the limit of ${limit} bytes.`)
  }
}

const readBody = (res: uWS.HttpResponse, limit: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let done = false
    res.onData((chunk, isLast) => {
      if (done) return
      size += chunk.byteLength
      if (size > limit) {
        done = true
        reject(new TooLarge(limit))
        return
      }
      // uWS reuses the chunk's memory after this callback returns.
      chunks.push(Buffer.from(chunk.slice(0)))
      if (isLast) {
        done = true
        resolve(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks))
      }
    })
  })

const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype'])

export const parseJsonBody = (raw: Buffer): unknown => {
  if (raw.length === 0) return undefined
  try {
    return JSON.parse(raw.toString('utf8'), (key, value) => {
      if (forbiddenKeys.has(key)) throw new DomainError('BadDataError', `The key "${key}" is not allowed in a request body.`)
      return value
    })
  } catch (error) {
    if (error instanceof DomainError) throw error
    throw badData('The request body is not valid JSON.')
  }
}

const contentTypeError = (contentType: string | undefined) =>
  new DomainError(
    'ContentTypeError',
    `We do not accept the content-type you provided (${contentType ? contentType.slice(0, 100) : "you didn't provide one"}). Try using one of the content-types we do accept instead (application/json) and make sure the body is in the corresponding format.`,
  )

export const startHttpServer = (options: HttpOptions): Promise<HttpServer> => {
  if (!isNativeUws() && !options.allowFallback) {
    return Promise.reject(
      new Error('uWebSockets.js is running its pure-JS fallback, not the native binary; refusing to start (set ALLOW_HTTP_FALLBACK=1 to allow it).'),
    )
  }
  const log = options.log ?? ((message: string, error?: unknown) => console.error(message, error ?? ''))
  let serving: { router: Router; corsPaths: Router; authenticator: Authenticator } | undefined
  const app = uWS.App()
  const metrics = options.metrics
  const unmatched = metrics?.slotsFor(undefined)

  const send = (res: uWS.HttpResponse, state: RequestState, reply: Reply, extraHeaders: Record<string, string> | undefined, closeConnection = false) => {
    if (state.aborted) return
    const body = reply.body
    const payload =
      body === undefined ? '' : Buffer.isBuffer(body) || typeof body === 'string' ? body : JSON.stringify(body)
    res.cork(() => {
      res.writeStatus(statusLine(reply.status))
      const headers = { ...extraHeaders, ...reply.headers }
      if (body !== undefined && !Buffer.isBuffer(body) && typeof body !== 'string' && !headers['content-type']) {
        headers['content-type'] = 'application/json; charset=utf-8'
      }
      for (const name in headers) res.writeHeader(name, headers[name])
      if (reply.status === 304 || reply.status === 204) res.endWithoutBody(0, closeConnection)
      else res.end(payload, closeConnection)
    })
    if (metrics) metrics.record(state.slots ?? unmatched!, reply.status, (performance.now() - state.started) / 1000)
  }

  const handle = async (res: uWS.HttpResponse, state: RequestState, request: Request, route: Route, cors: Record<string, string> | undefined) => {
    try {
      if (route.body && (request.method === 'POST' || request.method === 'PUT' || request.method === 'PATCH')) {
        const contentType = request.headers['content-type']
        const declaredLength = Number(request.headers['content-length'] ?? '0')
        if (declaredLength > options.maxBodyBytes) throw new TooLarge(options.maxBodyBytes)
        const raw = await readBody(res, options.maxBodyBytes)
        if (raw.length > 0 && !(contentType ?? '').toLowerCase().includes('json')) throw contentTypeError(contentType)
        request.body = parseJsonBody(raw)
      }
      const reply = await route.handler(request)
      send(res, state, reply, cors)
    } catch (error) {
      sendError(res, state, error, cors)
    }
  }

  const sendError = (res: uWS.HttpResponse, state: RequestState, error: unknown, cors: Record<string, string> | undefined) => {
    if (error instanceof DomainError) {
      send(res, state, errorReply(error), cors, error instanceof TooLarge)
      return
    }
    log('unexpected error while handling a request', error)
    send(res, state, unexpectedErrorReply(), cors)
  }

  app.any('/*', (res, req) => {
    const state: RequestState = { aborted: false, started: metrics ? performance.now() : 0, slots: undefined }
    res.onAborted(() => {
      state.aborted = true
    })
    const verb = req.getMethod().toUpperCase()
    const path = req.getUrl()
    const headers: Record<string, string> = {}
    req.forEach((name, value) => {
      headers[name] = value
    })
    const rawQuery = req.getQuery() ?? ''
    const remoteAddress = Buffer.from(res.getRemoteAddressAsText()).toString()
    const origin = headers.origin
    let cors: Record<string, string> | undefined

    try {
      if (!serving) throw new DomainError('ServiceUnavailableError', 'The server is starting; try again in a moment.')
      const { router, corsPaths, authenticator } = serving
      if (verb === 'OPTIONS') {
        const corsMatch = corsPaths.match('GET', path)
        if (corsMatch.kind === 'found') {
          send(res, state, { status: 204 }, {
            'access-control-allow-origin': origin ?? '*',
            'access-control-allow-methods': 'GET, POST, OPTIONS',
            'access-control-allow-headers': headers['access-control-request-headers'] ?? corsAllowHeaders,
            'access-control-max-age': '86400',
            vary: 'Origin',
          })
          return
        }
        send(res, state, { status: 204, headers: { allow: 'GET, POST, PUT, PATCH, DELETE' } }, undefined)
        return
      }
      const method = (verb === 'HEAD' ? 'GET' : verb) as Method
      if (!methods.has(method)) throw new DomainError('NotImplementedError', `The method ${verb} is not supported.`)
      const match = router.match(method, path)
      if (match.kind === 'not-found') throw new DomainError('NotFoundError', `The path you were looking for (${path.slice(0, 200)}) is not available.`)
      if (match.kind === 'method-not-allowed') {
        throw new DomainError('NotImplementedError', `The method ${verb} is not allowed on this path; allowed: ${match.allowed.join(', ')}.`)
      }
      const route = match.route
      if (metrics) state.slots = metrics.slotsFor(route)
      cors = route.cors ? { 'access-control-allow-origin': origin ?? '*', 'access-control-expose-headers': 'ETag', vary: 'Origin' } : undefined
      const principal = authenticate(route.access, headers, authenticator, route.adminToo)
      // Unleash checks permissions before it looks at the body.
      if (route.permission) authorize(principal, route.permission, match.params.projectId, match.params.environment)
      let query: URLSearchParams | undefined
      const request: Request = {
        method,
        path,
        params: match.params,
        // Parsed on first use: most SDK polls carry no query at all.
        get query() {
          return (query ??= new URLSearchParams(rawQuery))
        },
        headers,
        body: undefined,
        remoteAddress,
        principal,
        authorize: (permission, project, environment) => authorize(principal, permission, project, environment),
      }
      if (!route.body) {
        // Most reads answer synchronously, inside this uWS callback, with no promise in between.
        const reply = route.handler(request)
        if (reply instanceof Promise) reply.then((r) => send(res, state, r, cors), (e) => sendError(res, state, e, cors))
        else send(res, state, reply, cors)
        return
      }
      void handle(res, state, request, route, cors)
    } catch (error) {
      // A refused browser request still needs CORS headers, or the page sees a CORS failure, not the 401.
      sendError(res, state, error, cors)
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
        port: uWS.us_socket_local_port(listenSocket as unknown as uWS.us_socket),
        serve: (routes, authenticator) => {
          const corsRoutes = routes.filter((r) => r.cors).map((r) => ({ ...r, method: 'GET' as Method }))
          serving = {
            router: new Router(routes),
            corsPaths: new Router(corsRoutes.filter((r, i) => corsRoutes.findIndex((o) => o.path === r.path) === i)),
            authenticator,
          }
        },
        close: () => {
          uWS.us_listen_socket_close(listenSocket)
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

import type { GenericSchema } from 'valibot'

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

// Who is calling: resolved from the Authorization header by auth.ts.
export interface Principal {
  kind: 'admin' | 'client' | 'frontend' | 'user'
  name: string
  userId: number | null
  projects: string[]
  environment: string
  // Unleash's permission names; admin tokens hold them all.
  can: (permission: string, project?: string, environment?: string) => boolean
}

export interface Request {
  method: Method
  path: string
  params: Record<string, string>
  query: URLSearchParams
  // A request header by its lower-case name; undefined when it is missing or empty (uWS reads a value
  // that is not UTF-8 as empty too).
  header(name: string): string | undefined
  // Whether the request carries the header at all, even empty or unreadable: slower than header().
  hasHeader(name: string): boolean
  body: unknown
  // The body's text as it came, for a route with a body (undefined otherwise): what a cache of answers
  // keyed by the request can use as it is.
  bodyText?: string
  // The socket's peer address.
  remoteAddress: string
  // The client's address: remoteAddress, or behind TRUST_PROXY the one the trusted proxy saw (client-address.ts).
  clientAddress: string
  principal: Principal | undefined
  // For checks a route cannot declare (the flag's project known only to the handler): throws 403.
  authorize: (permission: string | string[], project?: string, environment?: string) => void
}

export interface Reply {
  status: number
  // A Buffer or string is sent as is; anything else as JSON.
  body?: unknown
  // Instead of a body: one made in pieces (a long answer built a slice at a time), sent in order as the
  // connection takes it, never joined. Its headers name its content type and ETag.
  pieces?: readonly Buffer[]
  headers?: Record<string, string>
  // A response that stays open (server-sent events): called once the status and headers are written.
  stream?: (stream: OpenStream) => void
  // With stream: a chunk its client ignores (an SSE comment). Once a slow client can take more, uWS sends
  // what it holds for it only when the response is written to again: this is written then, to learn
  // whether all of it has gone (OpenStream.onDrain). Without one, the next write() tells.
  drainProbe?: Buffer
  // Called once the body has been handed to the connection (or the client has gone): a body lent from
  // a buffer its route reuses may be written over after this.
  release?: () => void
}

// One open response. Writes after the client left (or after close) are dropped.
export interface OpenStream {
  // False when the connection did not take the chunk whole, or had not yet sent what it held from before:
  // uWS keeps the rest in memory until the client reads it, and the stream is behind until onDrain.
  write(chunk: string | Buffer): boolean
  // While the stream is behind, the bytes written since the last write the connection took whole (what
  // uWS holds, give or take the last small write before it); 0 otherwise.
  readonly buffered: number
  // Called each time a stream that was behind has sent all it held.
  onDrain(listener: () => void): void
  // Ends the response. A stream that is behind is cut off instead, with what uWS holds for it: its client
  // would have to read all of that before it saw the end.
  close(): void
  readonly closed: boolean
  // Called once, when the client leaves or close() is called.
  onClose(listener: () => void): void
}

export type Handler = (req: Request) => Reply | Promise<Reply>

export type Access = 'public' | 'admin' | 'client' | 'frontend'

export interface Route {
  method: Method
  path: string
  access: Access
  // Unleash's permission name (or any one of several), checked in the route's :projectId and :environment.
  permission?: string | string[]
  // Routes that take a JSON body need Content-Type: application/json.
  body?: boolean
  // With body: the body is not parsed for the handler, which reads req.bodyText and parses it itself
  // (parseJsonBody, http/json-body.ts) when it needs to: a route that answers from a cache keyed by the
  // text skips the parse on a hit.
  bodyText?: boolean
  cors?: boolean
  // A route answered after its uWS callback (one with a body, say) has its request headers copied before
  // that callback returns: all of them, unless this names the ones its handler reads (header() of another
  // throws). Its remote address is then read only when the handler asks for it, which must be before it
  // answers. For the hot POST routes (the frontend API), which read one or two headers of a dozen.
  keepHeaders?: readonly string[]
  // A client or frontend route that admin tokens may call too (the handler decides what they get).
  adminToo?: boolean
  handler: Handler
  docs?: RouteDocs
}

// What the OpenAPI description says of a route; the schemas are the ones the handler parses with.
export interface RouteDocs {
  summary?: string
  body?: GenericSchema
  // Query parameter name → description.
  query?: Record<string, string>
  // Status → the body's schema; null for a status answered without a body.
  responses?: Record<number, GenericSchema | null>
}

export interface Authenticator {
  byToken(secret: string): Principal | undefined
  bySession(sessionId: string): Principal | undefined
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

// Who is calling: resolved from the Authorization header by auth.ts.
export interface Principal {
  kind: 'admin' | 'client' | 'frontend'
  name: string
  userId: number | null
  projects: string[]
  environment: string
  secret: string
}

export interface Request {
  method: Method
  path: string
  params: Record<string, string>
  query: URLSearchParams
  headers: Record<string, string>
  body: unknown
  remoteAddress: string
  principal: Principal | undefined
}

export interface Reply {
  status: number
  // A Buffer or string is sent as is; anything else as JSON.
  body?: unknown
  headers?: Record<string, string>
}

export type Handler = (req: Request) => Reply | Promise<Reply>

export type Access = 'public' | 'admin' | 'client' | 'frontend'

export interface Route {
  method: Method
  path: string
  access: Access
  // Unleash's permission name; admin tokens hold them all.
  permission?: string
  // Routes that take a JSON body need Content-Type: application/json.
  body?: boolean
  cors?: boolean
  handler: Handler
}

export type TokenLookup = (secret: string) => Principal | undefined

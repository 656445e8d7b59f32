// Admin and client API calls over plain fetch, named after the API actions. Each returns
// { status, body, headers, text }: body is the parsed JSON when there is any, else undefined.

export interface ServerRef {
  baseUrl: string
  adminToken: string
}

export interface ApiResult<T = any> {
  status: number
  body: T
  text: string
  headers: Headers
}

export type Body = unknown

const encode = encodeURIComponent

const parseBody = (text: string, headers: Headers): unknown => {
  if (text.length === 0) return undefined
  if ((headers.get('content-type') ?? '').includes('json')) {
    try {
      return JSON.parse(text)
    } catch {
      return undefined
    }
  }
  return undefined
}

export interface RawRequest {
  method: string
  path: string
  // Sent as is when a string or Buffer; anything else as JSON with Content-Type: application/json.
  body?: Body
  // undefined → the server's admin token; null → no Authorization header.
  token?: string | null
  headers?: Record<string, string>
}

export const request = async <T = any>(server: ServerRef, req: RawRequest): Promise<ApiResult<T>> => {
  const headers: Record<string, string> = {}
  const token = req.token === undefined ? server.adminToken : req.token
  if (token !== null) headers.authorization = token
  let body: string | Uint8Array<ArrayBuffer> | undefined
  if (typeof req.body === 'string') body = req.body
  else if (Buffer.isBuffer(req.body)) body = Uint8Array.from(req.body)
  else if (req.body !== undefined) {
    body = JSON.stringify(req.body)
    headers['content-type'] = 'application/json'
  }
  Object.assign(headers, req.headers)
  const res = await fetch(server.baseUrl + req.path, { method: req.method, headers, body })
  const text = await res.text()
  return { status: res.status, text, body: parseBody(text, res.headers) as T, headers: res.headers }
}

export const api = <T = any>(server: ServerRef, method: string, path: string, body?: Body, token?: string | null): Promise<ApiResult<T>> =>
  request<T>(server, { method, path, body, token })

// Projects

export const listProjects = (s: ServerRef) => api(s, 'GET', '/api/admin/projects')
export const getProject = (s: ServerRef, project: string) => api(s, 'GET', `/api/admin/projects/${encode(project)}`)
export const createProject = (s: ServerRef, body: { id?: string; name: string } & Record<string, unknown>) => api(s, 'POST', '/api/admin/projects', body)
export const updateProject = (s: ServerRef, project: string, body: Record<string, unknown>) => api(s, 'PUT', `/api/admin/projects/${encode(project)}`, body)
export const deleteProject = (s: ServerRef, project: string) => api(s, 'DELETE', `/api/admin/projects/${encode(project)}`)
export const addProjectEnvironment = (s: ServerRef, project: string, environment: string, extra: Record<string, unknown> = {}) =>
  api(s, 'POST', `/api/admin/projects/${encode(project)}/environments`, { environment, ...extra })
export const removeProjectEnvironment = (s: ServerRef, project: string, environment: string) =>
  api(s, 'DELETE', `/api/admin/projects/${encode(project)}/environments/${encode(environment)}`)
export const setDefaultStrategy = (s: ServerRef, project: string, environment: string, strategy: Record<string, unknown>) =>
  api(s, 'POST', `/api/admin/projects/${encode(project)}/environments/${encode(environment)}/default-strategy`, strategy)

// Environments

export const listEnvironments = (s: ServerRef) => api(s, 'GET', '/api/admin/environments')
export const createEnvironment = (s: ServerRef, body: { name: string; type: string } & Record<string, unknown>) => api(s, 'POST', '/api/admin/environments', body)

// Features

const featurePath = (project: string, feature: string) => `/api/admin/projects/${encode(project)}/features/${encode(feature)}`

export const createFeature = (s: ServerRef, project: string, feature: string | ({ name: string } & Record<string, unknown>)) =>
  api(s, 'POST', `/api/admin/projects/${encode(project)}/features`, typeof feature === 'string' ? { name: feature } : feature)
export const listFeatures = (s: ServerRef, project: string) => api(s, 'GET', `/api/admin/projects/${encode(project)}/features`)
export const getFeature = (s: ServerRef, project: string, feature: string) => api(s, 'GET', featurePath(project, feature))
export const updateFeature = (s: ServerRef, project: string, feature: string, body: Record<string, unknown>) => api(s, 'PUT', featurePath(project, feature), body)
export const patchFeature = (s: ServerRef, project: string, feature: string, patch: unknown) => api(s, 'PATCH', featurePath(project, feature), patch)
export const validateFeatureName = (s: ServerRef, name: string, projectId?: string) =>
  api(s, 'POST', '/api/admin/features/validate', projectId === undefined ? { name } : { name, projectId })
export const archiveFeature = (s: ServerRef, project: string, feature: string) => api(s, 'DELETE', featurePath(project, feature))
export const reviveFeature = (s: ServerRef, feature: string) => api(s, 'POST', `/api/admin/archive/revive/${encode(feature)}`)
export const deleteArchivedFeature = (s: ServerRef, feature: string) => api(s, 'DELETE', `/api/admin/archive/${encode(feature)}`)
export const archiveFeatures = (s: ServerRef, project: string, features: string[]) => api(s, 'POST', `/api/admin/projects/${encode(project)}/archive`, { features })
export const reviveFeatures = (s: ServerRef, project: string, features: string[]) => api(s, 'POST', `/api/admin/projects/${encode(project)}/revive`, { features })
export const deleteFeatures = (s: ServerRef, project: string, features: string[]) => api(s, 'POST', `/api/admin/projects/${encode(project)}/delete`, { features })
export const listArchivedFeatures = (s: ServerRef, project?: string) =>
  api(s, 'GET', project === undefined ? '/api/admin/archive/features' : `/api/admin/archive/features/${encode(project)}`)

export const enableFeature = (s: ServerRef, project: string, feature: string, environment: string, query = '') =>
  api(s, 'POST', `${featurePath(project, feature)}/environments/${encode(environment)}/on${query}`)
export const disableFeature = (s: ServerRef, project: string, feature: string, environment: string) =>
  api(s, 'POST', `${featurePath(project, feature)}/environments/${encode(environment)}/off`)
export const getFeatureEnvironment = (s: ServerRef, project: string, feature: string, environment: string) =>
  api(s, 'GET', `${featurePath(project, feature)}/environments/${encode(environment)}`)

// Strategies

const strategiesPath = (project: string, feature: string, environment: string) =>
  `${featurePath(project, feature)}/environments/${encode(environment)}/strategies`

export const addStrategy = (s: ServerRef, project: string, feature: string, environment: string, strategy: Record<string, unknown> = { name: 'default' }) =>
  api(s, 'POST', strategiesPath(project, feature, environment), strategy)
export const listStrategies = (s: ServerRef, project: string, feature: string, environment: string) => api(s, 'GET', strategiesPath(project, feature, environment))
export const getStrategy = (s: ServerRef, project: string, feature: string, environment: string, id: string) =>
  api(s, 'GET', `${strategiesPath(project, feature, environment)}/${encode(id)}`)
export const updateStrategy = (s: ServerRef, project: string, feature: string, environment: string, id: string, strategy: Record<string, unknown>) =>
  api(s, 'PUT', `${strategiesPath(project, feature, environment)}/${encode(id)}`, strategy)
export const patchStrategy = (s: ServerRef, project: string, feature: string, environment: string, id: string, patch: unknown) =>
  api(s, 'PATCH', `${strategiesPath(project, feature, environment)}/${encode(id)}`, patch)
export const deleteStrategy = (s: ServerRef, project: string, feature: string, environment: string, id: string) =>
  api(s, 'DELETE', `${strategiesPath(project, feature, environment)}/${encode(id)}`)
export const setStrategySortOrder = (s: ServerRef, project: string, feature: string, environment: string, order: { id: string; sortOrder: number }[]) =>
  api(s, 'POST', `${strategiesPath(project, feature, environment)}/set-sort-order`, order)

// Events

export const listEvents = (s: ServerRef, project?: string) =>
  api(s, 'GET', project === undefined ? '/api/admin/events' : `/api/admin/events?project=${encode(project)}`)
export const listFeatureEvents = (s: ServerRef, feature: string) => api(s, 'GET', `/api/admin/events/${encode(feature)}`)

// API tokens

export interface CreateApiTokenBody {
  tokenName: string
  type: string
  environment?: string
  projects?: string[]
  expiresAt?: string
  [key: string]: unknown
}

export const createApiToken = (s: ServerRef, body: CreateApiTokenBody) => api(s, 'POST', '/api/admin/api-tokens', body)
export const listApiTokens = (s: ServerRef) => api(s, 'GET', '/api/admin/api-tokens')
export const getApiTokensByName = (s: ServerRef, name: string) => api(s, 'GET', `/api/admin/api-tokens/${encode(name)}`)
export const updateApiToken = (s: ServerRef, secret: string, body: unknown) => api(s, 'PUT', `/api/admin/api-tokens/${encode(secret)}`, body)
export const deleteApiToken = (s: ServerRef, secret: string) => api(s, 'DELETE', `/api/admin/api-tokens/${encode(secret)}`)

// Creates a client token and returns its secret; throws when the server refuses.
export const clientToken = async (s: ServerRef, projects: string[], environment = 'development', type = 'client'): Promise<string> => {
  const res = await createApiToken(s, { tokenName: `t-${projects.join('-')}-${environment}-${Math.random().toString(36).slice(2, 8)}`, type, environment, projects })
  if (res.status !== 201) throw new Error(`could not create a ${type} token for ${projects.join(',')}/${environment}: ${res.status} ${res.text}`)
  return res.body.secret as string
}

// Client API

export const getClientFeatures = (s: ServerRef, token: string, query = '', headers: Record<string, string> = {}) =>
  request(s, { method: 'GET', path: `/api/client/features${query}`, token, headers })
export const getClientFeature = (s: ServerRef, token: string, feature: string, query = '', headers: Record<string, string> = {}) =>
  request(s, { method: 'GET', path: `/api/client/features/${encode(feature)}${query}`, token, headers })
export const registerClient = (s: ServerRef, token: string, body: unknown) => request(s, { method: 'POST', path: '/api/client/register', token, body })
export const sendClientMetrics = (s: ServerRef, token: string, body: unknown) => request(s, { method: 'POST', path: '/api/client/metrics', token, body })

// Convenience: a flag switched on in one environment with one strategy; throws on any refusal.
export const createEnabledFeature = async (
  s: ServerRef,
  project: string,
  feature: string,
  environment = 'development',
  strategy: Record<string, unknown> = { name: 'default' },
): Promise<void> => {
  const steps = [
    () => createFeature(s, project, feature),
    () => addStrategy(s, project, feature, environment, strategy),
    () => enableFeature(s, project, feature, environment),
  ]
  for (const step of steps) {
    const res = await step()
    if (res.status >= 300) throw new Error(`setting up ${project}/${feature} failed: ${res.status} ${res.text}`)
  }
}

export const expectOk = <T extends ApiResult>(res: T, what: string): T => {
  if (res.status >= 300) throw new Error(`${what} failed: ${res.status} ${res.text}`)
  return res
}

// Segments

export const createSegment = (s: ServerRef, body: { name: string; constraints: unknown[] } & Record<string, unknown>) => api(s, 'POST', '/api/admin/segments', body)

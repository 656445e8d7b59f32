import { DomainError } from '../domain/errors.js'

// Where a browser's write that carries no token may come from. The session cookie is SameSite=Lax, so a
// page on another site can still send it with a form or fetch to a route without a body (and a page of
// this site, on another origin, with anything): the browser's own Origin and Sec-Fetch-Site headers say
// where the request was made, and only this server's pages may make it.
export interface OriginPolicy {
  // UNLEASH_URL's origin; when undefined, the origin the request's Host header names (http or https).
  publicOrigin: string | undefined
  // Other origins trusted to write (CSRF_ALLOWED_ORIGINS).
  allowed: ReadonlySet<string>
}

export const anyHostOrigin: OriginPolicy = { publicOrigin: undefined, allowed: new Set() }

// An http(s) URL; its origin is what a browser writes in Origin (scheme://host[:port], default port
// left out). Also how the configuration reads UNLEASH_URL and CSRF_ALLOWED_ORIGINS.
export const httpUrl = (value: string): URL | undefined => {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined
  } catch {
    // "null" (a sandboxed or opaque origin) lands here too: it is no one's.
    return undefined
  }
}

const refused = (why: string) => new DomainError('ForbiddenError', `Cross-origin request refused: ${why}`)

// The refusal of a write that a browser made from another origin, or undefined when it may go on. A
// request with neither header (a script, curl) is not a browser's, and goes on.
export const crossOriginRefusal = (
  policy: OriginPolicy,
  origin: string | undefined,
  fetchSite: string | undefined,
  host: string | undefined,
): DomainError | undefined => {
  if (origin !== undefined) {
    const url = httpUrl(origin)
    // Another origin, trusted by name: the browser rightly calls it same-site or cross-site.
    if (url !== undefined && policy.allowed.has(url.origin)) return undefined
    const own =
      url !== undefined &&
      (policy.publicOrigin !== undefined ? url.origin === policy.publicOrigin : host !== undefined && url.host === host.toLowerCase())
    if (!own) return refused(`Origin ${origin.slice(0, 100)} is not this server's origin.`)
  }
  if (fetchSite === 'cross-site' || fetchSite === 'same-site') return refused(`the browser says it was made by another site (Sec-Fetch-Site: ${fetchSite}).`)
  return undefined
}

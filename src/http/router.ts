import { badData } from '../domain/errors.js'
import type { Method, Route } from './types.js'

interface Node {
  statics: Map<string, Node>
  param?: Node
  routes: Map<Method, { route: Route; paramNames: string[] }>
}

const newNode = (): Node => ({ statics: new Map(), routes: new Map() })

export type Match =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method-not-allowed'; allowed: Method[] }
  | { kind: 'not-found' }

const splitPath = (path: string): string[] => path.split("/").filter((s) => s.length > 0)

// Express (and so Unleash) ignores a trailing slash and decodes each segment on its own.
export const noParams: Record<string, string> = Object.freeze({}) as Record<string, string>

// A route path that names no parameter: matched as it is written (uWS would read ':' and '*' as patterns).
export const isExact = (path: string): boolean => !path.includes(':') && !path.includes('*')

export class Router {
  private readonly root = newNode()

  // Routes without parameters are matched by uWS itself as it parses a request (HttpServer registers them
  // per exact path); what reaches the router is a path with parameters, HEAD, a trailing slash, or no route.
  constructor(routes: Route[]) {
    for (const route of routes) this.add(route)
  }

  private add(route: Route): void {
    let node = this.root
    const paramNames: string[] = []
    for (const segment of splitPath(route.path)) {
      if (segment.startsWith(':')) {
        paramNames.push(segment.slice(1))
        node.param ??= newNode()
        node = node.param
      } else {
        let next = node.statics.get(segment)
        if (!next) node.statics.set(segment, (next = newNode()))
        node = next
      }
    }
    if (node.routes.has(route.method)) throw new Error(`duplicate route ${route.method} ${route.path}`)
    node.routes.set(route.method, { route, paramNames })
  }

  match(method: Method, rawPath: string): Match {
    const allowed = new Set<Method>()
    const found = search(this.root, splitPath(rawPath), 0, [], method, allowed)
    if (found) {
      const params: Record<string, string> = {}
      found.paramNames.forEach((name, i) => {
        params[name] = decodeSegment(found.values[i], name)
      })
      return { kind: 'found', route: found.route, params }
    }
    if (allowed.size === 0) return { kind: 'not-found' }
    return { kind: 'method-not-allowed', allowed: [...allowed] }
  }
}

// Static first, then the parameter: a static segment that leads to no route for this method falls
// back to the parameter, as Express would match it (a flag named "validate", an environment "update").
const search = (
  node: Node,
  segments: string[],
  at: number,
  values: string[],
  method: Method,
  allowed: Set<Method>,
): { route: Route; paramNames: string[]; values: string[] } | undefined => {
  if (at === segments.length) {
    const found = node.routes.get(method)
    if (found) return { ...found, values: [...values] }
    for (const other of node.routes.keys()) allowed.add(other)
    return undefined
  }
  const next = node.statics.get(segments[at])
  const viaStatic = next && search(next, segments, at + 1, values, method, allowed)
  if (viaStatic) return viaStatic
  if (!node.param) return undefined
  values.push(segments[at])
  const viaParam = search(node.param, segments, at + 1, values, method, allowed)
  values.pop()
  return viaParam
}

const decodeSegment = (segment: string, name: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw badData(`The path parameter "${name}" is not correctly percent-encoded.`)
  }
}

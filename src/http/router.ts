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

const methodNames: readonly Method[] = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
const methodIndex = (method: Method): number =>
  method === 'GET' ? 0 : method === 'POST' ? 1 : method === 'PUT' ? 2 : method === 'PATCH' ? 3 : method === 'DELETE' ? 4 : -1

// Express (and so Unleash) ignores a trailing slash and decodes each segment on its own.
export const noParams: Record<string, string> = Object.freeze({}) as Record<string, string>

// A route path that names no parameter: matched as it is written (uWS would read ':' and '*' as patterns).
export const isExact = (path: string): boolean => !path.includes(':') && !path.includes('*')

export class Router {
  private readonly root = newNode()
  // Routes without parameters by method, then the path's length, then compared one by one, with their
  // match made once: the SDK poll paths hit this before the trie. A request's path and method are fresh
  // strings from uWS, and looking one up in a Map would compute its hash (about 150 ns in V8's runtime);
  // the length is a number, and comparing strings of the same length stops at the first difference.
  private readonly exact: Map<number, { path: string; match: Match }[]>[] = methodNames.map(() => new Map())

  constructor(routes: Route[]) {
    for (const route of routes) this.add(route)
    for (const route of routes) {
      if (!isExact(route.path)) continue
      const byLength = this.exact[methodNames.indexOf(route.method)]
      let list = byLength.get(route.path.length)
      if (!list) byLength.set(route.path.length, (list = []))
      list.push({ path: route.path, match: Object.freeze({ kind: 'found', route, params: noParams }) })
    }
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
    const list = this.exact[methodIndex(method)]?.get(rawPath.length)
    if (list !== undefined) for (let i = 0; i < list.length; i++) if (list[i].path === rawPath) return list[i].match
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

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
export class Router {
  private readonly root = newNode()

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
    const values: string[] = []
    let node: Node | undefined = this.root
    for (const segment of splitPath(rawPath)) {
      const next: Node | undefined = node.statics.get(segment)
      if (next) {
        node = next
        continue
      }
      if (!node.param) return { kind: 'not-found' }
      values.push(segment)
      node = node.param
    }
    const found = node.routes.get(method)
    if (found) {
      const params: Record<string, string> = {}
      found.paramNames.forEach((name, i) => {
        params[name] = decodeSegment(values[i], name)
      })
      return { kind: 'found', route: found.route, params }
    }
    if (node.routes.size === 0) return { kind: 'not-found' }
    return { kind: 'method-not-allowed', allowed: [...node.routes.keys()] }
  }
}

const decodeSegment = (segment: string, name: string): string => {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw badData(`The path parameter "${name}" is not correctly percent-encoded.`)
  }
}

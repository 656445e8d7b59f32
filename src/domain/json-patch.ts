import type { JsonPatch } from '../schemas/features.js'

// RFC 6902 over plain JSON values. Works on a deep copy: a failing patch leaves nothing half-applied.
export class PatchError extends Error {}

const unescape = (token: string) => token.replace(/~1/g, '/').replace(/~0/g, '~')

const tokens = (pointer: string): string[] => {
  if (pointer === '') return []
  if (!pointer.startsWith('/')) throw new PatchError(`"${pointer}" is not a JSON pointer`)
  return pointer.slice(1).split('/').map(unescape)
}

const forbidden = new Set(['__proto__', 'prototype', 'constructor'])

const isContainer = (value: unknown): value is Record<string, unknown> | unknown[] =>
  typeof value === 'object' && value !== null

const arrayIndex = (array: unknown[], token: string, forInsert: boolean): number => {
  if (forInsert && token === '-') return array.length
  if (!/^(0|[1-9][0-9]*)$/.test(token)) throw new PatchError(`"${token}" is not an array index`)
  const index = Number(token)
  if (index > array.length || (!forInsert && index === array.length)) throw new PatchError(`index ${token} is out of bounds`)
  return index
}

const parentOf = (document: unknown, path: string[]): { parent: Record<string, unknown> | unknown[]; key: string } => {
  if (path.length === 0) throw new PatchError('the whole document cannot be the target')
  let node: unknown = document
  for (const token of path.slice(0, -1)) {
    if (forbidden.has(token)) throw new PatchError(`"${token}" is not an allowed key`)
    if (Array.isArray(node)) node = node[arrayIndex(node, token, false)]
    else if (isContainer(node) && Object.hasOwn(node, token)) node = (node as Record<string, unknown>)[token]
    else throw new PatchError(`path "/${path.join('/')}" does not exist`)
  }
  if (!isContainer(node)) throw new PatchError(`path "/${path.join('/')}" does not exist`)
  const key = path[path.length - 1]
  if (forbidden.has(key)) throw new PatchError(`"${key}" is not an allowed key`)
  return { parent: node, key }
}

const read = (document: unknown, path: string[]): unknown => {
  if (path.length === 0) return document
  const { parent, key } = parentOf(document, path)
  if (Array.isArray(parent)) return parent[arrayIndex(parent, key, false)]
  if (!Object.hasOwn(parent, key)) throw new PatchError(`path "/${path.join('/')}" does not exist`)
  return parent[key]
}

const remove = (document: unknown, path: string[]): unknown => {
  const { parent, key } = parentOf(document, path)
  if (Array.isArray(parent)) return parent.splice(arrayIndex(parent, key, false), 1)[0]
  if (!Object.hasOwn(parent, key)) throw new PatchError(`path "/${path.join('/')}" does not exist`)
  const value = parent[key]
  delete parent[key]
  return value
}

const add = (document: unknown, path: string[], value: unknown): unknown => {
  if (path.length === 0) return value
  const { parent, key } = parentOf(document, path)
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value)
  else parent[key] = value
  return document
}

const equal = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

export const applyJsonPatch = <T>(document: T, patch: JsonPatch): T => {
  let doc: unknown = structuredClone(document)
  for (const operation of patch) {
    const path = tokens(operation.path)
    const value = structuredClone(operation.value)
    switch (operation.op) {
      case 'add':
        if (!('value' in operation)) throw new PatchError('"add" needs a value')
        doc = add(doc, path, value)
        break
      case 'remove':
        remove(doc, path)
        break
      case 'replace':
        if (!('value' in operation)) throw new PatchError('"replace" needs a value')
        if (path.length === 0) doc = value
        else {
          remove(doc, path)
          doc = add(doc, path, value)
        }
        break
      case 'move': {
        const from = tokens(operation.from ?? '')
        if (operation.path.startsWith(`${operation.from}/`)) throw new PatchError('cannot move a value into itself')
        const moved = remove(doc, from)
        doc = add(doc, path, moved)
        break
      }
      case 'copy':
        doc = add(doc, path, structuredClone(read(doc, tokens(operation.from ?? ''))))
        break
      case 'test':
        if (!equal(read(doc, path), value)) throw new PatchError(`test failed at "${operation.path}"`)
        break
    }
  }
  return doc as T
}

import { DomainError, badData } from '../domain/errors.js'

// A request's JSON body, parsed with keys that could reach an object's prototype refused (a 400).
const forbiddenKeys = new Set(['__proto__', 'constructor', 'prototype'])
// A short text that holds none of the forbidden keys, and no \u escape that could spell one, parses to the
// same value without the reviver, which makes JSON.parse several times slower. Short: the reviver's walk
// overflows the stack on nesting some thousands deep, which refuses such a body (400), and a text of at
// most 2,048 characters nests at most 1,024 deep.
const needsReviver = (text: string) =>
  text.length > 2048 || text.includes('\\u') || text.includes('__proto__') || text.includes('constructor') || text.includes('prototype')

export const parseJsonBody = (raw: Buffer | string): unknown => {
  const text = typeof raw === 'string' ? raw : raw.toString('utf8')
  if (text.length === 0) return undefined
  try {
    if (!needsReviver(text)) return JSON.parse(text)
    return JSON.parse(text, (key, value) => {
      if (forbiddenKeys.has(key)) throw new DomainError('BadDataError', `The key "${key}" is not allowed in a request body.`)
      return value
    })
  } catch (error) {
    if (error instanceof DomainError) throw error
    throw badData('The request body is not valid JSON.')
  }
}

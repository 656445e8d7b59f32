import type { Test } from 'tap'
import type { ApiResult } from './admin-api.js'

// Text that only an unhandled exception would put in a reply.
const internalText = [
  /\bat [^\s]+ \(/, // a stack frame
  /node:internal|node_modules|file:\/\//,
  /\/(work|src|dist|home|tmp)\/[\w/.-]+\.(ts|js)\b/,
  /\b(TypeError|RangeError|ReferenceError|SyntaxError|AssertionError)\b/,
  /\bundefined is not|Cannot read propert|is not a function\b/,
]

export interface ErrorExpectation {
  status?: number
  name?: string
  message?: string | RegExp
}

// Every error reply is JSON {id, name, message}: a 4xx unless stated, no stack or internal text.
export const expectError = (t: Test, res: ApiResult, expected: ErrorExpectation = {}, what = ''): void => {
  const label = what ? `${what}: ` : ''
  if (expected.status !== undefined) t.equal(res.status, expected.status, `${label}status ${expected.status}`)
  else {
    const is4xx = res.status >= 400 && res.status < 500
    t.ok(is4xx, is4xx ? `${label}a 4xx` : `${label}a 4xx, got ${res.status}: ${res.text.slice(0, 300)}`)
  }
  t.not(res.status, 500, `${label}never a 500`)
  t.match(res.headers.get('content-type') ?? '', /application\/json/, `${label}a JSON error body`)
  const body = res.body as Record<string, unknown> | undefined
  t.type(body?.id, 'string', `${label}the error has an id`)
  t.type(body?.name, 'string', `${label}the error has a name`)
  t.type(body?.message, 'string', `${label}the error has a message`)
  if (expected.name !== undefined) t.equal(body?.name, expected.name, `${label}error name ${expected.name}`)
  if (expected.message !== undefined) {
    if (typeof expected.message === 'string') t.equal(body?.message, expected.message, `${label}error message`)
    else t.match(String(body?.message), expected.message, `${label}error message`)
  }
  for (const pattern of internalText) t.notMatch(res.text, pattern, `${label}no internal text (${pattern})`)
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

// Polls until `check` returns a truthy value or the time is up.
export const eventually = async <T>(check: () => Promise<T> | T, timeoutMs = 20_000, everyMs = 50): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value) return value
    if (Date.now() > deadline) return value
    await sleep(everyMs)
  }
}

// A status assertion whose failure message carries the reply, so a refusal explains itself.
export const expectStatus = (t: Test, res: ApiResult, status: number, what: string): boolean => {
  const matches = res.status === status
  t.ok(matches, matches ? `${what}: ${status}` : `${what}: expected ${status}, got ${res.status} ${res.text.slice(0, 400)}`)
  return matches
}

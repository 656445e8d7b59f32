import { randomUUID } from 'node:crypto'
import { DomainError, type ErrorName } from '../domain/errors.js'
import type { Reply } from './types.js'

const statusByName: Record<ErrorName, number> = {
  BadDataError: 400,
  ValidationError: 400,
  PatternError: 400,
  ExceedsLimitError: 400,
  ArchivedFeatureError: 400,
  OwaspValidationError: 400,
  PasswordMismatch: 401,
  ProjectWithoutOwnerError: 409,
  AuthenticationRequired: 401,
  UnauthorizedError: 401,
  InvalidTokenError: 401,
  PermissionError: 403,
  NoAccessError: 403,
  ForbiddenError: 403,
  OperationDeniedError: 403,
  InvalidOperationError: 403,
  IncompatibleProjectError: 403,
  NotFoundError: 404,
  NotImplementedError: 405,
  NameExistsError: 409,
  ConflictError: 409,
  ContentTypeError: 415,
  PayloadTooLargeError: 413,
  UnknownError: 500,
  ServiceUnavailableError: 503,
  RateLimitError: 429,
}

export const statusOf = (error: DomainError): number => statusByName[error.kind]

export const errorReply = (error: DomainError): Reply => {
  const retryAfter = error.kind === 'RateLimitError' ? error.extra?.retryAfter : undefined
  return {
    status: statusOf(error),
    body: {
      id: randomUUID(),
      name: error.kind,
      message: error.message,
      ...(error.details ? { details: error.details } : {}),
      ...error.extra,
    },
    ...(typeof retryAfter === 'number' ? { headers: { 'retry-after': String(retryAfter) } } : {}),
  }
}

// Anything that is not a DomainError is our bug: the client learns only that.
export const unexpectedErrorReply = (): Reply =>
  errorReply(new DomainError('UnknownError', 'Unexpected error: the server could not complete the request.'))

const reasonPhrases: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content', 304: 'Not Modified',
  400: 'Bad Request', 401: 'Unauthorized', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed',
  409: 'Conflict', 413: 'Payload Too Large', 415: 'Unsupported Media Type', 422: 'Unprocessable Entity',
  429: 'Too Many Requests', 500: 'Internal Server Error', 503: 'Service Unavailable',
}

// Built once: a line made per response would be a fresh string for uWS to flatten every time. By index:
// cheaper than a Map lookup per response.
const statusLines: string[] = []
for (const [status, phrase] of Object.entries(reasonPhrases)) statusLines[Number(status)] = `${status} ${phrase}`

export const statusLine = (status: number): string => statusLines[status] ?? `${status} Unknown`

// The same as bytes, for uWS (which copies a string argument into UTF-8 first).
const statusLineBuffers: Buffer[] = []
for (const status in statusLines) statusLineBuffers[Number(status)] = Buffer.from(statusLines[status])
export const statusLineBytes = (status: number): Buffer | string => statusLineBuffers[status] ?? statusLine(status)

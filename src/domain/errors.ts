// Error kinds carry Unleash's names; http/errors.ts maps each name to its status.
export type ErrorName =
  | 'BadDataError'
  | 'ValidationError'
  | 'PatternError'
  | 'ExceedsLimitError'
  | 'ArchivedFeatureError'
  | 'OwaspValidationError'
  | 'PasswordMismatch'
  | 'ProjectWithoutOwnerError'
  | 'AuthenticationRequired'
  | 'UnauthorizedError'
  | 'InvalidTokenError'
  | 'PermissionError'
  | 'NoAccessError'
  | 'ForbiddenError'
  | 'OperationDeniedError'
  | 'InvalidOperationError'
  | 'IncompatibleProjectError'
  | 'NotFoundError'
  | 'NotImplementedError'
  | 'NameExistsError'
  | 'ConflictError'
  | 'ContentTypeError'
  | 'PayloadTooLargeError'
  | 'UnknownError'
  | 'ServiceUnavailableError'
  | 'RateLimitError'

export interface ErrorDetail {
  message: string
  path?: string
}

export class DomainError extends Error {
  constructor(
    readonly kind: ErrorName,
    message: string,
    readonly details?: ErrorDetail[],
    readonly extra?: Record<string, unknown>,
  ) {
    super(message)
  }
}

export const badData = (message: string, details?: ErrorDetail[]) =>
  new DomainError('BadDataError', message, details ?? [{ message }])
export const notFound = (message = 'The requested resource could not be found') => new DomainError('NotFoundError', message)
export const nameExists = (message: string) => new DomainError('NameExistsError', message)
export const invalidOperation = (message: string) => new DomainError('InvalidOperationError', message)
export const forbidden = (message: string) => new DomainError('ForbiddenError', message)
// The answer carries Retry-After as well as retryAfter in its body.
export const rateLimited = (message: string, retryAfterSeconds: number) =>
  new DomainError('RateLimitError', message, undefined, { retryAfter: retryAfterSeconds })

export type Result<T> = { ok: true; value: T } | { ok: false; error: DomainError }
export const ok = <T>(value: T): Result<T> => ({ ok: true, value })
export const fail = <T = never>(error: DomainError): Result<T> => ({ ok: false, error })

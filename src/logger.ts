// One line per event of note: plain text for a terminal, or one JSON object per line (LOG_FORMAT=json)
// for a log pipeline. Callers pass what happened and its facts; secrets never go in either.

const levels = ['debug', 'info', 'warn', 'error'] as const
export type LogLevel = (typeof levels)[number]
export const isLogLevel = (value: string): value is LogLevel => (levels as readonly string[]).includes(value)

export type LogFields = Record<string, string | number | boolean | null | undefined>

export interface Logger {
  debug(message: string, fields?: LogFields): void
  info(message: string, fields?: LogFields): void
  warn(message: string, fields?: LogFields): void
  // `error`: an unexpected error, logged with its stack (never sent to a client).
  error(message: string, error?: unknown, fields?: LogFields): void
}

export interface LoggerOptions {
  format: 'text' | 'json'
  level: LogLevel
  // Where lines go; stdout for info and below, stderr for warn and error by default.
  write?: (line: string, level: LogLevel) => void
  clock?: () => Date
}

const errorFields = (error: unknown): LogFields =>
  error instanceof Error ? { error: error.message, stack: error.stack } : error === undefined ? {} : { error: String(error) }

const textOf = (message: string, fields: LogFields): string => {
  let line = message
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined || key === 'stack') continue
    line += ` ${key}=${typeof value === 'string' && /\s/.test(value) ? JSON.stringify(value) : String(value)}`
  }
  return typeof fields.stack === 'string' ? `${line}\n${fields.stack}` : line
}

const defaultWrite = (line: string, level: LogLevel) => (level === 'warn' || level === 'error' ? process.stderr : process.stdout).write(`${line}\n`)

// A line that may repeat in a burst (every write refused while the disk is full): said at once, then at
// most once per interval, with how many were held back since it was last said.
export const everyAtMost = (intervalMs: number, now: () => number = Date.now) => {
  let lastMs = Number.NEGATIVE_INFINITY
  let heldBack = 0
  return (say: (heldBack: number) => void): void => {
    const at = now()
    if (at - lastMs < intervalMs) {
      heldBack++
      return
    }
    lastMs = at
    say(heldBack)
    heldBack = 0
  }
}

export const createLogger = (options: LoggerOptions): Logger => {
  const threshold = levels.indexOf(options.level)
  const write = options.write ?? defaultWrite
  const clock = options.clock ?? (() => new Date())
  const emit = (level: LogLevel, message: string, fields: LogFields) => {
    if (levels.indexOf(level) < threshold) return
    write(options.format === 'json' ? JSON.stringify({ time: clock().toISOString(), level, msg: message, ...fields }) : textOf(message, fields), level)
  }
  return {
    debug: (message, fields = {}) => emit('debug', message, fields),
    info: (message, fields = {}) => emit('info', message, fields),
    warn: (message, fields = {}) => emit('warn', message, fields),
    error: (message, error, fields = {}) => emit('error', message, { ...fields, ...errorFields(error) }),
  }
}

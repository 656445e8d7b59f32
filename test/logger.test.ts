import t from 'tap'
import { createLogger, everyAtMost, type LogLevel } from '../src/logger.js'

const capture = (format: 'text' | 'json', level: LogLevel) => {
  const lines: { line: string; level: LogLevel }[] = []
  const logger = createLogger({ format, level, write: (line, at) => lines.push({ line, level: at }), clock: () => new Date('2026-11-24T12:00:00.000Z') })
  return { logger, lines }
}

t.test('JSON lines carry time, level, message and fields', async (t) => {
  const { logger, lines } = capture('json', 'info')
  logger.info('snapshot written', { lastId: 42 })
  t.same(lines.map((l) => JSON.parse(l.line)), [{ time: '2026-11-24T12:00:00.000Z', level: 'info', msg: 'snapshot written', lastId: 42 }])
})

t.test('an error is logged with its message and stack, to the error stream', async (t) => {
  const { logger, lines } = capture('json', 'info')
  const error = new Error('disk gone')
  logger.error('a commit failed', error)
  const entry = JSON.parse(lines[0].line)
  t.equal(lines[0].level, 'error')
  t.equal(entry.error, 'disk gone')
  t.equal(entry.stack, error.stack)
})

t.test('lines below the level are dropped', async (t) => {
  const { logger, lines } = capture('json', 'warn')
  logger.debug('d')
  logger.info('i')
  logger.warn('w')
  logger.error('e')
  t.same(lines.map((l) => JSON.parse(l.line).msg), ['w', 'e'])
})

t.test('text lines are the message, then key=value fields, then a stack on its own lines', async (t) => {
  const { logger, lines } = capture('text', 'debug')
  logger.warn('could not write snapshots', { error: 'no space left', attempt: 2 })
  t.equal(lines[0].line, 'could not write snapshots error="no space left" attempt=2')
  const error = new Error('boom')
  logger.error('unexpected', error)
  t.equal(lines[1].line, `unexpected error=boom\n${error.stack}`)
})

t.test('a repeated line is said at once, then at most once per interval with the count held back', async (t) => {
  let now = 0
  const said: number[] = []
  const line = everyAtMost(10_000, () => now)
  for (const at of [0, 1, 2, 9_999, 10_000, 10_001, 25_000]) {
    now = at
    line((heldBack) => said.push(heldBack))
  }
  t.same(said, [0, 3, 1], 'said at 0, at 10,000 (3 held back) and at 25,000 (1 held back)')
})

// A bare server-sent events reader for tests that look at the wire: frames, ids, comments, closing.
import http from 'node:http'
import type { Test } from 'tap'

export interface SseFrame {
  event: string | undefined
  id: string | undefined
  data: string
  // A comment line (": keep-alive"), which carries no event.
  comment?: string
}

export interface SseStream {
  status: number
  headers: http.IncomingHttpHeaders
  frames: SseFrame[]
  // Resolves with the first frame (already received or still to come) that passes `match`.
  next(match: (frame: SseFrame) => boolean, timeoutMs?: number): Promise<SseFrame>
  closed: Promise<void>
  close(): void
}

export const openStream = (t: Test, baseUrl: string, path: string, headers: Record<string, string>): Promise<SseStream> =>
  new Promise((resolve, reject) => {
    const req = http.get(`${baseUrl}${path}`, { headers: { accept: 'text/event-stream', ...headers }, agent: false }, (res) => {
      const frames: SseFrame[] = []
      const waiters: { match: (f: SseFrame) => boolean; resolve: (f: SseFrame) => void }[] = []
      let buffer = ''
      let markClosed: () => void = () => {}
      const closed = new Promise<void>((r) => (markClosed = r))
      const push = (frame: SseFrame) => {
        frames.push(frame)
        for (const waiter of [...waiters]) {
          if (!waiter.match(frame)) continue
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve(frame)
        }
      }
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        buffer += chunk
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          const frame: SseFrame = { event: undefined, id: undefined, data: '' }
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim()
            else if (line.startsWith('event: ')) frame.event = line.slice(7)
            else if (line.startsWith('id: ')) frame.id = line.slice(4)
            else if (line.startsWith('data: ')) data.push(line.slice(6))
          }
          frame.data = data.join('\n')
          push(frame)
        }
      })
      res.on('end', markClosed)
      res.on('close', markClosed)
      const stream: SseStream = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames,
        closed,
        next: (match, timeoutMs = 3000) => {
          const found = frames.find(match)
          if (found) return Promise.resolve(found)
          return new Promise((resolveFrame, rejectFrame) => {
            const timer = setTimeout(() => rejectFrame(new Error(`no matching frame within ${timeoutMs} ms; got ${JSON.stringify(frames).slice(0, 500)}`)), timeoutMs)
            waiters.push({ match, resolve: (f) => (clearTimeout(timer), resolveFrame(f)) })
          })
        },
        close: () => req.destroy(),
      }
      t.teardown(() => stream.close())
      resolve(stream)
    })
    req.on('error', reject)
  })

export const eventsOf = (frame: SseFrame): { type: string; eventId: number; [key: string]: any }[] => JSON.parse(frame.data).events

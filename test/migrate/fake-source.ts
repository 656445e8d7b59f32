// A tiny HTTP server that answers as the recorded Unleash 8.2 did (record-fixtures.ts): the same
// request (method, path with query, body) gets the same answer; anything else a 404 as Unleash words it.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface RecordedAnswer {
  method: string
  path: string
  body: string | null
  status: number
  text: string
}

export const startFakeSource = async (answers: readonly RecordedAnswer[], token: string) => {
  const byRequest = new Map(answers.map((a) => [`${a.method} ${a.path} ${a.body ?? ''}`, a]))
  const seen: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (chunk: Buffer) => (body += chunk.toString()))
    req.on('end', () => {
      seen.push(`${req.method} ${req.url}`)
      if (req.headers.authorization !== token) {
        res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ message: 'This endpoint requires an API token.' }))
        return
      }
      const answer = byRequest.get(`${req.method} ${req.url} ${body}`)
      if (!answer) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ name: 'NotFoundError', message: `The path you were looking for (${req.url}) is not available.` }))
        return
      }
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.text)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    // The requests it was sent, in order: a migration sends GETs and the export's POSTs only.
    seen: () => [...seen],
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

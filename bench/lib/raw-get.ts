import http from 'node:http'

export interface RawResponse {
  status: number
  headers: http.IncomingHttpHeaders
  // The bytes on the wire: never decompressed.
  body: Buffer
}

// One GET without content decoding (fetch would gunzip), for capturing and comparing exact bodies.
export const rawGet = (url: string, headers: Record<string, string>): Promise<RawResponse> =>
  new Promise((resolve, reject) => {
    const req = http.get(url, { headers, agent: false }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (chunk: Buffer) => chunks.push(chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', reject)
  })

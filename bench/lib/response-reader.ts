// A minimal HTTP/1.1 response reader for load generation: it finds the end of each response and
// counts bytes, without copying or decoding the body. node:http's client costs several times more
// CPU per response, and on a 2-core machine the client's CPU is taken from the server under test.

export interface ResponseInfo {
  status: number
  headerBytes: number
  bodyBytes: number
}

const headEnd = Buffer.from('\r\n\r\n')
const lineEnd = Buffer.from('\r\n')
const contentLength = /\r\ncontent-length:[ \t]*(\d+)/i
const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i

const hasNoBody = (status: number) => status === 204 || status === 304 || (status >= 100 && status < 200)

// head: reading the status line and headers; body: a content-length body; chunkSize, chunkData and
// trailer: a chunked body (RFC 9112 7.1), whose bodyBytes count the chunks' data only.
type Mode = 'head' | 'body' | 'chunkSize' | 'chunkData' | 'trailer'

export class ResponseReader {
  private pending: Buffer | undefined
  private mode: Mode = 'head'
  // Bytes left of a content-length body, or of a chunk's data and its CRLF.
  private remaining = 0
  private current: ResponseInfo = { status: 0, headerBytes: 0, bodyBytes: 0 }

  constructor(private readonly onResponse: (response: ResponseInfo) => void) {}

  // Throws on responses whose end it cannot find: bodies delimited by the connection's close.
  push(chunk: Buffer): void {
    let data = chunk
    let offset = 0
    if (this.pending) {
      data = Buffer.concat([this.pending, chunk])
      this.pending = undefined
    }
    while (offset < data.length) {
      if (this.mode === 'body' || this.mode === 'chunkData') {
        const take = Math.min(this.remaining, data.length - offset)
        this.remaining -= take
        offset += take
        if (this.remaining > 0) continue
        if (this.mode === 'body') this.finish()
        else this.mode = 'chunkSize'
        continue
      }
      // The other modes read up to a delimiter, which may not have arrived yet.
      const delimiter = this.mode === 'head' ? headEnd : lineEnd
      const end = data.indexOf(delimiter, offset)
      if (end < 0) {
        this.pending = Buffer.from(data.subarray(offset))
        return
      }
      const text = data.toString('latin1', offset, end)
      const consumed = end + delimiter.length - offset
      offset += consumed
      if (this.mode === 'head') this.startResponse(text, consumed)
      else if (this.mode === 'chunkSize') {
        const size = parseInt(text.split(';')[0].trim(), 16)
        if (Number.isNaN(size)) throw new Error(`a chunk size line that is not hexadecimal: ${JSON.stringify(text.slice(0, 40))}`)
        if (size === 0) this.mode = 'trailer'
        else {
          this.current.bodyBytes += size
          this.remaining = size + lineEnd.length
          this.mode = 'chunkData'
        }
      } else if (text.length === 0) this.finish()
    }
  }

  private startResponse(head: string, headerBytes: number): void {
    const status = Number(head.slice(9, 12))
    this.current = { status, headerBytes, bodyBytes: 0 }
    if (hasNoBody(status)) return this.finish()
    if (chunked.test(head)) {
      this.mode = 'chunkSize'
      return
    }
    const match = contentLength.exec(head)
    if (!match) throw new Error(`a ${status} response without content-length or chunked encoding cannot be measured`)
    this.current.bodyBytes = Number(match[1])
    this.remaining = this.current.bodyBytes
    if (this.remaining === 0) this.finish()
    else this.mode = 'body'
  }

  private finish(): void {
    this.mode = 'head'
    this.onResponse(this.current)
  }

  get isIdle(): boolean {
    return this.mode === 'head' && this.pending === undefined
  }
}

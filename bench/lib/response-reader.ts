// A minimal HTTP/1.1 response reader for load generation: it finds the end of each response and
// counts bytes, without copying or decoding the body. node:http's client costs several times more
// CPU per response, and on a 2-core machine the client's CPU is taken from the server under test.

export interface ResponseInfo {
  status: number
  headerBytes: number
  bodyBytes: number
}

const headEnd = Buffer.from('\r\n\r\n')
const contentLength = /\r\ncontent-length:[ \t]*(\d+)/i
const chunked = /\r\ntransfer-encoding:[^\r]*chunked/i

const hasNoBody = (status: number) => status === 204 || status === 304 || (status >= 100 && status < 200)

export class ResponseReader {
  private pending: Buffer | undefined
  private bodyRemaining = -1
  private current: ResponseInfo = { status: 0, headerBytes: 0, bodyBytes: 0 }

  constructor(private readonly onResponse: (response: ResponseInfo) => void) {}

  // Throws on responses whose end it cannot find: chunked bodies, and bodies delimited by close.
  push(chunk: Buffer): void {
    let data = chunk
    let offset = 0
    while (offset < data.length) {
      if (this.bodyRemaining < 0) {
        if (this.pending) {
          data = Buffer.concat([this.pending, data.subarray(offset)])
          offset = 0
          this.pending = undefined
        }
        const end = data.indexOf(headEnd, offset)
        if (end < 0) {
          this.pending = Buffer.from(data.subarray(offset))
          return
        }
        const head = data.toString('latin1', offset, end)
        const status = Number(head.slice(9, 12))
        let length = 0
        if (!hasNoBody(status)) {
          if (chunked.test(head)) throw new Error('chunked responses are not supported by the load generator')
          const match = contentLength.exec(head)
          if (!match) throw new Error(`a ${status} response without content-length cannot be measured`)
          length = Number(match[1])
        }
        this.current = { status, headerBytes: end + headEnd.length - offset, bodyBytes: length }
        this.bodyRemaining = length
        offset = end + headEnd.length
      }
      const take = Math.min(this.bodyRemaining, data.length - offset)
      this.bodyRemaining -= take
      offset += take
      if (this.bodyRemaining === 0) {
        this.bodyRemaining = -1
        this.onResponse(this.current)
      }
    }
  }

  get isIdle(): boolean {
    return this.bodyRemaining < 0 && this.pending === undefined
  }
}

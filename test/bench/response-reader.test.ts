import t from 'tap'
import { ResponseReader, type ResponseInfo } from '../../bench/lib/response-reader.js'

const read = (wire: string, pieceSize: number): ResponseInfo[] => {
  const seen: ResponseInfo[] = []
  const reader = new ResponseReader((response) => seen.push({ ...response }))
  const bytes = Buffer.from(wire, 'latin1')
  for (let i = 0; i < bytes.length; i += pieceSize) reader.push(bytes.subarray(i, i + pieceSize))
  t.ok(reader.isIdle, `idle after the last response (pieces of ${pieceSize})`)
  return seen
}

const lengthDelimited = 'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello'
const notModified = 'HTTP/1.1 304 Not Modified\r\netag: "x"\r\n\r\n'
const chunkedBody = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4;ext=1\r\nwiki\r\n6\r\npedia \r\n0\r\nx-trailer: 1\r\n\r\n'

t.test('responses delimited by content-length, none and chunked encoding, split anywhere', async (t) => {
  for (const pieceSize of [1, 2, 3, 7, 1000]) {
    t.same(read(lengthDelimited + notModified + chunkedBody + lengthDelimited, pieceSize), [
      { status: 200, headerBytes: 38, bodyBytes: 5 },
      { status: 304, headerBytes: 40, bodyBytes: 0 },
      { status: 200, headerBytes: 47, bodyBytes: 10 },
      { status: 200, headerBytes: 38, bodyBytes: 5 },
    ])
  }
})

t.test('a body delimited by the close of the connection is refused', async (t) => {
  const reader = new ResponseReader(() => undefined)
  t.throws(() => reader.push(Buffer.from('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nbody')), /without content-length or chunked encoding/)
})

t.test('a chunk size that is not hexadecimal is refused', async (t) => {
  const reader = new ResponseReader(() => undefined)
  t.throws(() => reader.push(Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n')), /not hexadecimal/)
})

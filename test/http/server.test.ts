import net from 'node:net'
import t, { type Test } from 'tap'
import { fixedHeaders } from '../../src/http/fixed-headers.js'
import { startHttpServer, withEtag } from '../../src/http/server.js'
import type { OpenStream, Principal, Request, Route } from '../../src/http/types.js'

// What each request costs the HTTP layer before a route runs: no closures of its own, no query parsing
// for a request without a query string, the remote address only when asked for.
t.test('requests share their methods and the empty query; a query string is parsed for its own request', async (t) => {
  const seen: Request[] = []
  const route = (path: string, read: (req: Request) => unknown): Route => ({
    method: 'GET',
    path,
    access: 'public',
    handler: (req) => {
      seen.push(req)
      return { status: 200, body: { value: read(req) } }
    },
  })
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1000 })
  t.teardown(() => server.close())
  const nobody = (): Principal | undefined => undefined
  server.serve(
    [route('/plain', (req) => req.query.get('a')), route('/address', (req) => req.remoteAddress)],
    { byToken: nobody, bySession: nobody },
  )
  const get = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers })
    return { status: res.status, headers: res.headers, body: (await res.json()) as { value: unknown } }
  }
  t.same((await get('/plain')).body, { value: null })
  t.same((await get('/plain')).body, { value: null })
  t.same((await get('/plain?a=1')).body, { value: '1' })
  t.same((await get('/plain?a=2')).body, { value: '2' })
  const [first, second, third, fourth] = seen
  t.equal(first.query, second.query, 'one empty query for requests without a query string')
  t.not(third.query, fourth.query, 'a query string is its own')
  t.throws(() => first.query.set('a', 'x'), /read-only/, 'the shared empty query refuses changes')
  t.equal(first.authorize, second.authorize, 'authorize is a method, not a closure per request')
  t.same((await get('/address')).body, { value: '127.0.0.1' }, 'the remote address when asked for')
  const json = await get('/plain')
  t.equal(json.headers.get('content-type'), 'application/json; charset=utf-8', 'an object body is sent as JSON')
})

// A POST route that keeps each body's text and answers 202.
const bodyRecorder = (path: string, bodies: string[]): Route => ({
  method: 'POST',
  path,
  access: 'public',
  body: true,
  bodyText: true,
  handler: (req) => {
    bodies.push(req.bodyText ?? '')
    return { status: 202 }
  },
})

// Routes without parameters are given to uWS for their exact paths; everything else still reaches the
// router. Headers made once go to uWS as one block, beside the CORS ones; a body is decoded as sent.
t.test('a route without parameters answers as through the router; its fixed headers arrive whole beside the CORS ones; a body keeps its bytes', async (t) => {
  const bodies: string[] = []
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1000 })
  t.teardown(() => server.close())
  const nobody = (): Principal | undefined => undefined
  const own = fixedHeaders({ etag: '"e1"', 'cache-control': 'no-cache', 'content-type': 'application/json; charset=utf-8' })
  server.serve(
    [
      { method: 'GET', path: '/exact', access: 'public', cors: true, handler: () => ({ status: 200, body: '{"a":1}', headers: own }) },
      bodyRecorder('/exact', bodies),
    ],
    { byToken: nobody, bySession: nobody },
  )
  const url = `http://127.0.0.1:${server.port}/exact`
  const got = await fetch(url, { headers: { origin: 'https://app.example' } })
  t.equal(await got.text(), '{"a":1}')
  t.same([got.headers.get('etag'), got.headers.get('cache-control'), got.headers.get('content-type')], ['"e1"', 'no-cache', 'application/json; charset=utf-8'], "the reply's own headers, each whole")
  t.same([got.headers.get('access-control-allow-origin'), got.headers.get('access-control-expose-headers'), got.headers.get('vary')], ['https://app.example', 'ETag', 'Origin'], 'and the CORS ones')
  const slash = await fetch(`${url}/`)
  t.same([slash.status, slash.headers.get('etag')], [200, '"e1"'], 'a trailing slash: the same route, through the router')
  const head = await fetch(url, { method: 'HEAD' })
  t.same([head.status, head.headers.get('etag')], [200, '"e1"'], 'HEAD is answered as GET')
  t.equal((await fetch(url, { method: 'DELETE' })).status, 405, 'a method the path has no route for')
  const post = (bytes: number[]) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: Buffer.from(bytes) })
  t.equal((await post([0xef, 0xbb, 0xbf, 0x7b, 0x7d])).status, 202)
  t.equal((await post([0x7b, 0xff, 0x7d])).status, 202)
  t.same(bodies, ['\ufeff{}', '{\ufffd}'], 'a byte order mark is kept; a byte that is not UTF-8 is replaced')
})

// A body of many chunks is gathered into one buffer that doubles as it fills (a megabyte: from 64 KiB, five
// times), up to its declared length or, without one (chunked transfer encoding), up to the limit. Either way the text is the bytes sent, a character of
// four bytes split between chunks included.
t.test('a body that arrives in many chunks is read whole, with or without its length declared', async (t) => {
  const bodies: string[] = []
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 4 * 2 ** 20 })
  t.teardown(() => server.close())
  const nobody = (): Principal | undefined => undefined
  server.serve([bodyRecorder('/echo', bodies)], { byToken: nobody, bySession: nobody })
  // 3 bytes of ASCII then a 4-byte character: the character straddles most chunk bounds a kernel picks.
  const text = `{"v":"${'abc\u{1F600}'.repeat(150_000)}"}`
  const bytes = Buffer.from(text)
  t.equal(bytes.length, 1_050_008, 'a body of about a megabyte')
  const raw = (head: string, body: Buffer[]) =>
    new Promise<string>((resolve, reject) => {
      let answer = ''
      const socket = net.connect(server.port, '127.0.0.1', () => {
        socket.write(head)
        for (const piece of body) socket.write(piece)
      })
      socket.setEncoding('latin1')
      socket.on('data', (chunk: string) => {
        answer += chunk
        if (answer.includes('\r\n\r\n')) socket.end()
      })
      socket.on('close', () => resolve(answer))
      socket.on('error', reject)
    })
  const withLength = await raw(`POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${bytes.length}\r\n\r\n`, [bytes])
  t.match(withLength, /^HTTP\/1\.1 202/, 'with Content-Length')
  const pieces: Buffer[] = []
  for (let at = 0; at < bytes.length; at += 65_537) {
    const piece = bytes.subarray(at, at + 65_537)
    pieces.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n'))
  }
  pieces.push(Buffer.from('0\r\n\r\n'))
  const chunked = await raw('POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n', pieces)
  t.match(chunked, /^HTTP\/1\.1 202/, 'with chunked transfer encoding')
  t.equal(bodies.length, 2)
  t.ok(bodies[0] === text, 'the declared-length body is the text sent')
  t.ok(bodies[1] === text, 'the chunked body is the text sent')
})

// A route may lend its reply a buffer it reuses (the playground's answers): written over as soon as
// release() is called, the bytes sent must be the ones the reply had.
t.test("a reply's release() is called once its body is handed to the connection, before or after a body is read", async (t) => {
  const lent = Buffer.alloc(4 * 1024 * 1024, 'a')
  const releases: string[] = []
  const lending = (method: 'GET' | 'POST'): Route => ({
    method,
    path: '/lent',
    access: 'public',
    body: method === 'POST',
    handler: () => ({
      status: 200,
      body: lent,
      release: () => {
        releases.push(method)
        lent.fill('b')
      },
    }),
  })
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1000 })
  t.teardown(() => server.close())
  const nobody = (): Principal | undefined => undefined
  server.serve([lending('GET'), lending('POST')], { byToken: nobody, bySession: nobody })
  for (const method of ['GET', 'POST'] as const) {
    lent.fill('a')
    const res = await fetch(`http://127.0.0.1:${server.port}/lent`, method === 'POST' ? { method, body: '{}', headers: { 'content-type': 'application/json' } } : {})
    const body = Buffer.from(await res.arrayBuffer())
    t.equal(body.length, lent.length, `${method}: every byte arrived`)
    t.equal(body.indexOf('b'), -1, `${method}: none of them written after release()`)
  }
  t.same(releases, ['GET', 'POST'], 'once per reply')
})

// A server answering one public GET route; stopped when the test ends.
const servingOne = async (t: Test, path: string, handler: Route['handler']) => {
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1000 })
  t.teardown(() => server.close())
  const nobody = (): Principal | undefined => undefined
  server.serve([{ method: 'GET', path, access: 'public', handler }], { byToken: nobody, bySession: nobody })
  return server
}

// A body of megabytes is handed to uWS as the socket takes it (a copy in uWS's own buffer costs 32 moves
// of what is left as it drains): the lent buffer is held until all of it has gone, or the client has.
t.test('a large lent body is held until the socket has taken all of it, and let go when the client leaves', async (t) => {
  const lent = Buffer.alloc(32 * 1024 * 1024, 'a')
  let released = 0
  let onRelease = () => {}
  let onAnswer = () => {}
  const server = await servingOne(t, '/large', () => {
    setImmediate(onAnswer)
    return {
      status: 200,
      body: lent,
      release: () => {
        released++
        lent.fill('b')
        onRelease()
      },
    }
  })
  // A client that does not read yet: the kernel takes a few MB of the body, uWS none of the rest.
  const request = async () => {
    const socket = net.connect({ host: '127.0.0.1', port: server.port })
    socket.pause()
    t.teardown(() => socket.destroy())
    const answered = new Promise<void>((resolve) => (onAnswer = resolve))
    socket.write('GET /large HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    await answered
    return socket
  }

  const reader = await request()
  t.equal(released, 0, 'not let go while the client has not read it')
  const received: Buffer[] = []
  let bytes = 0
  const releasedOnce = new Promise<void>((resolve) => (onRelease = resolve))
  const whole = new Promise<void>((resolve) => {
    reader.on('data', (chunk: Buffer) => {
      received.push(chunk)
      bytes += chunk.length
      const text = Buffer.concat(received)
      const head = text.indexOf('\r\n\r\n')
      if (head >= 0 && text.length - head - 4 >= lent.length) resolve()
    })
  })
  reader.resume()
  await whole
  await releasedOnce
  const text = Buffer.concat(received)
  const body = text.subarray(text.indexOf('\r\n\r\n') + 4)
  t.match(text.subarray(0, 200).toString(), /content-length: 33554432/i, 'sent with its length')
  t.equal(body.length, lent.length, 'every byte arrived')
  t.equal(body.indexOf('b'), -1, 'none of them written after release()')
  t.equal(released, 1, 'let go once, when all of it had gone')

  lent.fill('a')
  const leaving = await request()
  t.equal(released, 1, 'the next one is held while its client does not read')
  const releasedAgain = new Promise<void>((resolve) => (onRelease = resolve))
  leaving.destroy()
  await releasedAgain
  t.equal(released, 2, 'and let go once its client left')
})

t.test("a reply's pieces are sent in order with their summed length, across a client that reads late", async (t) => {
  // Pieces of several MB (more than the kernel takes at once) and odd lengths, each of its own byte.
  const pieces = [3, 5 * 1024 * 1024 + 7, 1, 4 * 1024 * 1024 + 13, 2 * 1024 * 1024].map((length, i) => Buffer.alloc(length, 97 + i))
  const total = pieces.reduce((sum, piece) => sum + piece.length, 0)
  let released = 0
  let onAnswer = () => {}
  // Answered later, as a list made in slices is.
  const server = await servingOne(t, '/pieces', async () => {
    await new Promise((resolve) => setImmediate(resolve))
    setImmediate(onAnswer)
    return { status: 200, headers: { 'content-type': 'application/json; charset=utf-8' }, pieces, release: () => void released++ }
  })
  const socket = net.connect({ host: '127.0.0.1', port: server.port })
  socket.pause()
  t.teardown(() => socket.destroy())
  const answered = new Promise<void>((resolve) => (onAnswer = resolve))
  socket.write('GET /pieces HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
  await answered
  t.equal(released, 0, 'held while the client has not read them')
  const received: Buffer[] = []
  const whole = new Promise<void>((resolve) => {
    socket.on('data', (chunk: Buffer) => {
      received.push(chunk)
      const text = Buffer.concat(received)
      const head = text.indexOf('\r\n\r\n')
      if (head >= 0 && text.length - head - 4 >= total) resolve()
    })
  })
  socket.resume()
  await whole
  const text = Buffer.concat(received)
  const head = text.subarray(0, text.indexOf('\r\n\r\n')).toString()
  t.match(head, new RegExp(`content-length: ${total}`, 'i'), 'sent with the pieces\' summed length')
  t.match(head, /content-type: application\/json/i, 'with its own headers')
  t.ok(text.subarray(text.indexOf('\r\n\r\n') + 4).equals(Buffer.concat(pieces)), 'every byte, in order')
  t.equal(released, 1, 'let go once all of them had gone')
  // A client that reads as they come: more than a turn's worth goes without the connection refusing any.
  const fast = await fetch(`http://127.0.0.1:${server.port}/pieces`)
  t.equal(fast.headers.get('content-length'), String(total))
  t.ok(Buffer.from(await fast.arrayBuffer()).equals(Buffer.concat(pieces)), 'read as they come: every byte, in order')
  t.equal(released, 2, 'let go once more')
})

t.test('an ETag of a reply in pieces is answered with 304 when the client has it', async (t) => {
  const reply = { status: 200, headers: { etag: 'W/"abc"', 'content-type': 'application/json; charset=utf-8' }, pieces: [Buffer.from('{}')] }
  t.same(withEtag(reply, 'W/"abc"'), { status: 304, headers: reply.headers })
  t.equal(withEtag(reply, 'W/"other"'), reply, 'another ETag: the pieces')
  t.equal(withEtag(reply, undefined), reply, 'none: the pieces')
})

// Raw, so that a header can be sent on two lines as a proxy that adds its own line does.
const rawRequest = (port: number, head: string): Promise<string> =>
  new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.end(head))
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => (text += chunk))
    socket.on('end', () => resolve(text.slice(text.indexOf('\r\n\r\n') + 4)))
    socket.on('error', reject)
  })

t.test('behind trusted proxies the client address is the one the outermost of them saw', async (t) => {
  const nobody = (): Principal | undefined => undefined
  const start = async (trustProxy: number | undefined) => {
    const server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1000, trustProxy })
    t.teardown(() => server.close())
    const client = (method: 'GET' | 'POST'): Route => ({
      method,
      path: '/client',
      access: 'public',
      body: method === 'POST',
      handler: (req) => ({ status: 200, body: req.clientAddress }),
    })
    server.serve([client('GET'), client('POST')], { byToken: nobody, bySession: nobody })
    return server.port
  }
  const ask = (port: number, method: string, forwarded: string[]) =>
    rawRequest(port, `${method} /client HTTP/1.1\r\nHost: x\r\nConnection: close\r\n${forwarded.map((v) => `X-Forwarded-For: ${v}\r\n`).join('')}${method === 'POST' ? 'Content-Length: 0\r\n' : ''}\r\n`)
  const untrusting = await start(undefined)
  t.equal(await ask(untrusting, 'GET', ['203.0.113.9']), '127.0.0.1', 'not trusted: the socket')
  const one = await start(1)
  for (const method of ['GET', 'POST']) {
    t.equal(await ask(one, method, ['203.0.113.9']), '203.0.113.9', `${method}: the proxy's entry`)
    t.equal(await ask(one, method, ['6.6.6.6, 203.0.113.9']), '203.0.113.9', `${method}: not what the client wrote before it`)
    t.equal(await ask(one, method, ['6.6.6.6', '203.0.113.9']), '203.0.113.9', `${method}: the proxy's own line counts, not the client's first one`)
    t.equal(await ask(one, method, []), '127.0.0.1', `${method}: no header, the socket`)
  }
  const two = await start(2)
  t.equal(await ask(two, 'GET', ['6.6.6.6, 203.0.113.9, 10.0.0.2']), '203.0.113.9', 'two proxies: the second entry from the right')
})

// Issue 23: what a slow client leaves in uWS is visible to the stream's owner, who can stop writing, learn
// when it has gone, or cut the client off.
t.test('a stream whose client stops reading says so, counts what is held, learns when it drained, and is cut off by close()', async (t) => {
  const opened: OpenStream[] = []
  let onOpen = () => {}
  const server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 1000 })
  t.teardown(() => server.close())
  const nobody = (): Principal | undefined => undefined
  const probe = Buffer.from(': probe\n\n')
  server.serve(
    [{
      method: 'GET',
      path: '/stream',
      access: 'public',
      handler: () => ({ status: 200, headers: { 'content-type': 'text/event-stream' }, drainProbe: probe, stream: (s) => (opened.push(s), onOpen()) }),
    }],
    { byToken: nobody, bySession: nobody },
  )
  const connect = async () => {
    const socket = net.connect({ host: '127.0.0.1', port: server.port })
    socket.pause()
    const received: Buffer[] = []
    socket.on('data', (chunk: Buffer) => void received.push(chunk))
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()))
    t.teardown(() => socket.destroy())
    const open = new Promise<void>((resolve) => (onOpen = resolve))
    socket.write('GET /stream HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n')
    await open
    return { socket, stream: opened.at(-1)!, received, closed }
  }
  const chunk = Buffer.alloc(256 * 1024, '~')
  // The kernel takes a few MB of a client that does not read before uWS has to hold anything.
  const fillUntilHeld = (stream: OpenStream): number => {
    for (let i = 1; i <= 400; i++) if (!stream.write(chunk)) return i
    return 0
  }

  const first = await connect()
  t.equal(first.stream.buffered, 0, 'nothing held while the client keeps up')
  const writes = fillUntilHeld(first.stream)
  t.ok(writes > 0, `write() said false after ${writes} writes of 256 KB`)
  t.equal(first.stream.buffered, chunk.length, 'what uWS holds: the write the socket did not take whole')
  t.equal(first.stream.write(chunk), false, 'a write while behind is not taken either')
  t.equal(first.stream.buffered, 2 * chunk.length, 'and counts')
  const drained = new Promise<void>((resolve) => first.stream.onDrain(resolve))
  first.socket.resume()
  await drained
  t.equal(first.stream.buffered, 0, 'drained once the client read')
  t.equal(first.stream.write('data: after\n\n'), true, 'written whole again')
  const sent = (writes + 1) * chunk.length
  await new Promise<void>((resolve) => {
    const check = () => (Buffer.concat(first.received).includes('data: after') ? resolve() : first.socket.once('data', check))
    check()
  })
  const text = Buffer.concat(first.received).toString('latin1')
  t.equal(text.split('~').length - 1, sent, 'every byte written reached the client, in order')
  t.ok(text.includes(': probe'), 'with the probe that learned it had drained')

  const second = await connect()
  let closedSeen = false
  second.stream.onClose(() => (closedSeen = true))
  t.ok(fillUntilHeld(second.stream) > 0, 'behind again')
  second.stream.close()
  t.equal(closedSeen, true, 'close() tells the owner at once')
  t.equal(second.stream.write('data: late\n\n'), false, 'writes after close are dropped')
  second.socket.resume()
  await second.closed
  const end = Buffer.concat(second.received).toString('latin1').slice(-7)
  t.not(end, '\r\n0\r\n\r\n', 'cut off without the end of the response, which would have waited behind what was held')
})

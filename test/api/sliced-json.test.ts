import { createHash } from 'node:crypto'
import t from 'tap'
import { slicedJsonList } from '../../src/api/sliced-json.js'

// A long list answered a slice at a time: the same text, and ETag, as JSON.stringify of the whole answer.

const textOf = (pieces: readonly Buffer[] | undefined) => Buffer.concat(pieces ?? []).toString()
const etagOf = (text: string) => `W/"${createHash('sha1').update(text).digest('base64url')}"`

t.test('the text and ETag of JSON.stringify of the whole answer, in pieces, pausing between slices', async (t) => {
  const items = Array.from({ length: 500 }, (_, i) => ({ name: `flag-${i}`, description: i % 7 === 0 ? 'ünïcödé "quoted" \\ \u2028' : null, n: i }))
  let pauses = 0
  const reply = await slicedJsonList(
    { before: { id: 'p', name: 'P', skipped: undefined, version: 1 }, key: 'features', items, view: (item) => ({ ...item, tags: [] }), after: { members: 0 } },
    { pause: async () => void pauses++, sliceMs: 0, pieceBytes: 1024 },
  )
  const whole = JSON.stringify({ id: 'p', name: 'P', version: 1, features: items.map((item) => ({ ...item, tags: [] })), members: 0 })
  t.equal(textOf(reply.pieces), whole)
  t.ok(reply.pieces!.length > 20, `in pieces of about 1 KB (${reply.pieces!.length})`)
  t.equal(pauses, 500, 'a pause after each item (slices of 0 ms)')
  t.equal(reply.status, 200)
  t.same(reply.headers, { etag: etagOf(whole), 'content-type': 'application/json; charset=utf-8' }, 'the ETag of the whole text')
})

t.test('an empty list, nothing before or after, and a view JSON cannot say', async (t) => {
  const none = await slicedJsonList({ before: {}, key: 'features', items: [], view: (x) => x })
  t.equal(textOf(none.pieces), '{"features":[]}')
  const odd = await slicedJsonList({ before: { version: 2 }, key: 'list', items: [1, 2, 3], view: (n) => (n === 2 ? undefined : n) })
  t.equal(textOf(odd.pieces), JSON.stringify({ version: 2, list: [1, undefined, 3] }), 'as in an array: null')
  t.equal(textOf(odd.pieces), '{"version":2,"list":[1,null,3]}')
})

t.test('the items are walked a slice at a time: a pause comes before the rest is read', async (t) => {
  const read: number[] = []
  function* items() {
    for (let i = 0; i < 4; i++) {
      read.push(i)
      yield i
    }
  }
  const seenAtPauses: number[] = []
  await slicedJsonList({ before: {}, key: 'n', items: items(), view: (n) => n }, { pause: async () => void seenAtPauses.push(read.length), sliceMs: 0, pieceBytes: 1 << 20 })
  t.same(seenAtPauses, [1, 2, 3, 4])
})

import t from 'tap'
import { Utf8Builder } from '../../src/eval/utf8-builder.js'

t.test('pieces are written as UTF-8, in order, growing past the expected size', async (t) => {
  const builder = new Utf8Builder(1)
  const pieces = ['{"a":', '"ø€😀"', ',"long":"', 'x'.repeat(10_000), '"}']
  for (const piece of pieces) builder.write(piece)
  const expected = Buffer.from(pieces.join(''), 'utf8')
  t.equal(builder.byteLength, expected.length)
  t.ok(builder.bytes().equals(expected), 'the same bytes as encoding the joined text')
})

t.test('an empty builder has no bytes', async (t) => {
  t.equal(new Utf8Builder().bytes().length, 0)
})

t.test('a builder given a buffer writes into it, and into a larger one once it is full', async (t) => {
  // Room is made for 3 bytes per UTF-16 unit: 'abc' fits in 16, 10 letters do not.
  const lent = Buffer.alloc(16)
  const builder = new Utf8Builder(lent).write('abc')
  t.equal(builder.storage, lent, 'the lent buffer is written into')
  t.equal(lent.toString('utf8', 0, 3), 'abc')
  builder.write('defghij')
  t.not(builder.storage, lent, 'past its end the bytes move to a larger buffer')
  t.equal(builder.bytes().toString(), 'abcdefghij')
})

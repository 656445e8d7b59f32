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

import t from 'tap'
import { flat } from '../../src/eval/flat-string.js'

t.test('flat answers the same text, whatever it holds', async (t) => {
  const texts = ['', 'a', '{"name":"checkout.new-flow-0001","enabled":true', 'quote " backslash \\ newline \n tab \t', 'æøå ✓ 😀', '\ud800 lone \udfff surrogates', '\u0000\u001f']
  for (const text of texts) t.equal(flat(`${text}`), text, JSON.stringify(text))
  const parts = Array.from({ length: 40 }, (_, i) => `part-${i}-`)
  t.equal(flat(parts.reduce((joined, part) => joined + part, '')), parts.join(''), 'a concatenation of many parts')
})

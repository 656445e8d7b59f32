import t from 'tap'
import { idList } from '../../src/eval/id-list.js'

// What the SDK does: split the text, then look the id up in the list.
const sdkHas = (text: string, id: unknown): boolean => (text ? text.split(/\s*,\s*/) : []).includes(id as string)

t.test('an empty text lists nothing', async (t) => {
  t.equal(idList('', (id: unknown) => id), undefined)
})

t.test('membership is the split list’s, separators with spaces and empty entries included', async (t) => {
  const texts = ['u1', 'u1,u2', 'u1 , u2,u3 ,u4', ' u1,u2 ', 'u1,,u2', ',', 'a,ab,abc,b', 'user-1,user-10,user-100', 'a b ,c', 'a\u00a0,b', 'x, ,y']
  const ids: unknown[] = ['u1', 'u2', 'u3', 'u4', ' u1', 'u2 ', '', 'a', 'ab', 'abc', 'b', 'bc', 'user-1', 'user-10', 'user-1000', 'u1,u2', 'u1 ,u2', 'u1 ', 'a b', 'a b ', 'a', 'a\u00a0', 'c', ' ', 'x', 'y', 1, undefined, null]
  for (const text of texts) {
    const has = idList(text, (id: unknown) => id)!
    for (const id of ids) t.equal(has(id), sdkHas(text, id), `${JSON.stringify(text)} has ${JSON.stringify(id)}`)
  }
})

t.test('a long list: every entry is found, and ids that share its entries’ prefixes and lengths are not', async (t) => {
  const entries = Array.from({ length: 5000 }, (_, i) => `user-${(i * 7919) % 100_000}`)
  const has = idList(entries.join(','), (id: unknown) => id)!
  let found = 0
  for (const entry of entries) if (has(entry)) found++
  t.equal(found, entries.length)
  const listed = new Set(entries)
  let wrong = 0
  for (let i = 0; i < 100_000; i++) if (has(`user-${i}`) !== listed.has(`user-${i}`)) wrong++
  t.equal(wrong, 0)
})

t.test('a text past 65,536 characters: every entry is found, the last ones included', async (t) => {
  const entries = Array.from({ length: 8000 }, (_, i) => `customer-${i}`)
  const text = entries.join(' , ')
  t.ok(text.length > 2 ** 16)
  const has = idList(text, (id: unknown) => id)!
  t.equal(entries.filter((entry) => has(entry)).length, entries.length)
  t.notOk(has('customer-8000'))
  t.notOk(has('customer-7999 '))
})

t.test('a text of 65,535 separators: its 65,536 empty entries are counted past 16 bits', async (t) => {
  const text = ','.repeat(2 ** 16 - 1)
  const has = idList(text, (id: unknown) => id)!
  t.equal(has(''), sdkHas(text, ''))
  t.equal(has('x'), sdkHas(text, 'x'))
})

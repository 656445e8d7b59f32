import { existsSync, mkdtempSync, rmSync, truncateSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { openKeptFile, writeKeptFile } from '../../src/store/kept-file.js'

const dirFor = (t: Test) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kept-file-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return path.join(dir, 'answers.kept')
}

const sections = () => [Buffer.from('first section'), new Uint8Array(new Uint32Array([1, 2, 70000]).buffer), Buffer.alloc(0)]

t.test('a kept file gives back its header at its stamp, and each section when asked, once', async (t) => {
  const file = dirFor(t)
  await writeKeptFile(file, '12:abc', { header: { scopes: ['x'] }, sections: sections() })
  const kept = openKeptFile(file, '12:abc')
  t.same(kept?.header, { scopes: ['x'] })
  t.notOk(existsSync(file), 'opening removes its name')
  const hex = (s: Uint8Array) => Buffer.from(s.buffer, s.byteOffset, s.byteLength).toString('hex')
  t.same([2, 0, 1].map((i) => hex(kept!.section(i))), [2, 0, 1].map((i) => hex(sections()[i])), 'each section, in any order')
  const numbers = kept!.section(1)
  t.same([...new Uint32Array(numbers.buffer, numbers.byteOffset, 3)], [1, 2, 70000], 'a section can be viewed as 32-bit numbers')
  kept!.close()
  t.throws(() => kept!.section(0), 'no section after close')
  t.equal(openKeptFile(file, '12:abc'), undefined, 'a second open finds nothing')
})

t.test('a kept file of another log position, or cut short, is not used (and removed)', async (t) => {
  const file = dirFor(t)
  await writeKeptFile(file, '12:abc', { header: 1, sections: sections() })
  t.equal(openKeptFile(file, '13:def'), undefined, 'another stamp')
  t.notOk(existsSync(file))
  await writeKeptFile(file, '12:abc', { header: 1, sections: sections() })
  truncateSync(file, 40)
  t.equal(openKeptFile(file, '12:abc'), undefined, 'cut short')
  t.notOk(existsSync(file))
})

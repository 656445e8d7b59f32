import { existsSync, mkdtempSync, rmSync, truncateSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import { readKeptFile, writeKeptFile } from '../../src/store/kept-file.js'

const dirFor = (t: Test) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'kept-file-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return path.join(dir, 'answers.kept')
}

const sections = () => [Buffer.from('first section'), new Uint8Array(new Uint32Array([1, 2, 70000]).buffer), Buffer.alloc(0)]

t.test('a kept file gives back its header and sections at its stamp, once', async (t) => {
  const file = dirFor(t)
  await writeKeptFile(file, '12:abc', { header: { scopes: ['x'] }, sections: sections() })
  const kept = readKeptFile(file, '12:abc')
  t.same(kept?.header, { scopes: ['x'] })
  t.same(kept?.sections.map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength).toString('hex')), sections().map((s) => Buffer.from(s.buffer, s.byteOffset, s.byteLength).toString('hex')))
  t.same([...new Uint32Array(kept!.sections[1].buffer, kept!.sections[1].byteOffset, 3)], [1, 2, 70000], 'a section can be viewed as 32-bit numbers')
  t.notOk(existsSync(file), 'reading removes it')
  t.equal(readKeptFile(file, '12:abc'), undefined, 'a second read finds nothing')
})

t.test('a kept file of another log position, or cut short, is not used (and removed)', async (t) => {
  const file = dirFor(t)
  await writeKeptFile(file, '12:abc', { header: 1, sections: sections() })
  t.equal(readKeptFile(file, '13:def'), undefined, 'another stamp')
  t.notOk(existsSync(file))
  await writeKeptFile(file, '12:abc', { header: 1, sections: sections() })
  truncateSync(file, 40)
  t.equal(readKeptFile(file, '12:abc'), undefined, 'cut short')
  t.notOk(existsSync(file))
})

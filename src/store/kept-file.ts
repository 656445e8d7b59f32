import { closeSync, openSync, readSync, renameSync, rmSync, statSync } from 'node:fs'
import { open } from 'node:fs/promises'

// A file of byte sections that holds at one log position only: what a clean stop keeps so that the next
// start need not work it out again. The stamp names that position (the caller's: the last record and
// its chain link); a file with another stamp, or unreadable, is not used. A file is used once: opening
// it removes its name. Written under a temporary name and renamed, so it is whole or absent.
//
// Layout: magic, a uint32 (little-endian) byte length of the JSON header { stamp, header, lengths },
// then the sections back to back.

const magic = Buffer.from('flagwright kept 1\n')

export interface Kept {
  header: unknown
  sections: Uint8Array[]
}

export const writeKeptFile = async (file: string, stamp: string, kept: Kept): Promise<void> => {
  const json = Buffer.from(JSON.stringify({ stamp, header: kept.header, lengths: kept.sections.map((s) => s.byteLength) }))
  const length = Buffer.alloc(4)
  length.writeUInt32LE(json.length)
  const temporary = `${file}.writing`
  const handle = await open(temporary, 'w')
  try {
    await handle.writev([magic, length, json, ...kept.sections])
  } finally {
    await handle.close()
  }
  renameSync(temporary, file)
}

const readExactly = (fd: number, bytes: Uint8Array, position: number): void => {
  for (let at = 0; at < bytes.byteLength; ) {
    const read = readSync(fd, bytes, at, bytes.byteLength - at, position + at)
    if (read === 0) throw new Error('the kept file ends early')
    at += read
  }
}

// What a start reads of a kept file: its header at once, a section when it is asked for (in a buffer of
// its own), so that sections nobody asks for never take memory. The file's name is removed on opening
// (it is used once); its open descriptor reads it until close.
export interface KeptReader {
  header: unknown
  section(index: number): Uint8Array
  close(): void
}

export const openKeptFile = (file: string, stamp: string): KeptReader | undefined => {
  let fd: number | undefined
  try {
    fd = openSync(file, 'r')
    const size = statSync(file).size
    const head = Buffer.alloc(magic.length + 4)
    readExactly(fd, head, 0)
    if (!head.subarray(0, magic.length).equals(magic)) throw new Error('not a kept file')
    const jsonLength = head.readUInt32LE(magic.length)
    const json = Buffer.alloc(jsonLength)
    readExactly(fd, json, head.length)
    const parsed = JSON.parse(json.toString('utf8')) as { stamp: unknown; header: unknown; lengths: unknown }
    const lengths = parsed.lengths
    if (parsed.stamp !== stamp || !Array.isArray(lengths) || !lengths.every((n) => Number.isSafeInteger(n) && n >= 0)) throw new Error('another stamp')
    const starts: number[] = []
    let position = head.length + jsonLength
    for (const n of lengths as number[]) {
      starts.push(position)
      position += n
    }
    if (position !== size) throw new Error('the kept file ends early')
    const open = fd
    let closed = false
    return {
      header: parsed.header,
      section: (index) => {
        if (closed) throw new Error('the kept file is closed')
        const bytes = Buffer.allocUnsafeSlow((lengths as number[])[index])
        readExactly(open, bytes, starts[index])
        return bytes
      },
      close: () => {
        if (!closed) closeSync(open)
        closed = true
      },
    }
  } catch {
    if (fd !== undefined) closeSync(fd)
    return undefined
  } finally {
    rmSync(file, { force: true })
  }
}

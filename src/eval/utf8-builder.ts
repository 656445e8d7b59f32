// A long text written as UTF-8 as it is made, piece by piece. A string built by `+=` is a tree of
// its pieces; turning megabytes of it into bytes at the end (what an HTTP write does) first copies the
// whole tree into one string and then encodes that, which costs several times what writing each
// piece straight into a buffer does.
export class Utf8Builder {
  private buffer: Buffer
  private length = 0

  // Given a buffer, writes into it (and past it into a larger one when it is full).
  constructor(start: number | Buffer = 4096) {
    this.buffer = typeof start === 'number' ? Buffer.allocUnsafe(Math.max(64, start)) : start
  }

  write(text: string): this {
    // A UTF-16 unit takes at most 3 bytes in UTF-8: room for that needs no measuring of the text.
    const room = text.length * 3
    if (this.length + room > this.buffer.length) this.grow(this.length + room)
    this.length += this.buffer.write(text, this.length)
    return this
  }

  // Bytes already written as UTF-8 (another builder's, say).
  append(source: Buffer, start: number, end: number): this {
    const length = end - start
    if (this.length + length > this.buffer.length) this.grow(this.length + length)
    this.length += source.copy(this.buffer, this.length, start, end)
    return this
  }

  // The bytes written so far (a view of the builder's buffer: write nothing more once this is taken).
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length)
  }

  get byteLength(): number {
    return this.length
  }

  // The whole buffer written into, for a later builder to start from once these bytes are used.
  get storage(): Buffer {
    return this.buffer
  }

  private grow(needed: number): void {
    const larger = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2))
    this.buffer.copy(larger, 0, 0, this.length)
    this.buffer = larger
  }
}

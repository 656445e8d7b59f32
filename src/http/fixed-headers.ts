// Headers a route answers with again and again (a cached answer's, the CORS headers of an origin): made
// once, frozen, and carrying their names and values as bytes for uWS, which copies every string argument
// into UTF-8 first and takes a Buffer as it is.
export const wire = Symbol('headers as bytes')

export interface HeaderBytes {
  names: readonly string[]
  // Name and value of each, in turn.
  bytes: readonly Buffer[]
  // All of them for one writeHeader(name, value): uWS writes `name: value\r\n` as given, so the first name
  // and a value that goes on with the other headers' lines write them all in one call into uWS, not one
  // per header. Undefined for no headers.
  block: readonly [Buffer, Buffer] | undefined
}

export type FixedHeaders = Readonly<Record<string, string>> & { readonly [wire]?: HeaderBytes }

export const fixedHeaders = (headers: Record<string, string>): Record<string, string> => {
  const names = Object.keys(headers)
  const bytes = names.flatMap((name) => [Buffer.from(name), Buffer.from(headers[name])])
  const rest = names.slice(1).map((name) => `\r\n${name}: ${headers[name]}`).join('')
  const block = names.length === 0 ? undefined : ([bytes[0], Buffer.from(`${headers[names[0]]}${rest}`)] as const)
  // Not enumerable: a spread or a for...in of the headers does not see it.
  Object.defineProperty(headers, wire, { value: Object.freeze({ names, bytes, block }), enumerable: false })
  return Object.freeze(headers)
}

// The bytes of headers made by fixedHeaders(), or undefined for any other object.
export const headerBytes = (headers: Record<string, string>): HeaderBytes | undefined => (headers as FixedHeaders)[wire]

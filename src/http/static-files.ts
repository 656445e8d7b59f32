import { createHash } from 'node:crypto'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { DomainError } from '../domain/errors.js'
import type { Reply, Request, Route } from './types.js'

// Prebuilt files (the web UI that scripts/build.mjs bundles into dist/public) served from memory:
// read once at start with the .br and .gz copies the build wrote beside them, never compressed here.
// Names under assets/ carry a content hash, so they are cached for a year; index.html is revalidated.

export interface StaticFile {
  type: string
  body: Buffer
  gzip?: Buffer
  br?: Buffer
  etag: string
  immutable: boolean
}

const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
}

const compressedCopy = /\.(gz|br)$/

export const contentTypeOf = (name: string): string | undefined => types[path.extname(name)]

// A file built in memory or read from elsewhere (the OpenAPI page), served like the UI's.
export const staticFile = (name: string, body: Buffer, immutable = false): StaticFile => ({
  type: contentTypeOf(name) ?? 'application/octet-stream',
  body,
  etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
  immutable,
})

export const loadStaticFiles = (dir: string): Map<string, StaticFile> => {
  const files = new Map<string, StaticFile>()
  if (!existsSync(dir)) return files
  const walk = (sub: string) => {
    for (const entry of readdirSync(path.join(dir, sub), { withFileTypes: true })) {
      const name = sub ? `${sub}/${entry.name}` : entry.name
      if (entry.isDirectory()) walk(name)
      else if (!compressedCopy.test(name) && types[path.extname(name)]) {
        const full = path.join(dir, name)
        const body = readFileSync(full)
        files.set(name, {
          type: types[path.extname(name)],
          body,
          gzip: existsSync(`${full}.gz`) ? readFileSync(`${full}.gz`) : undefined,
          br: existsSync(`${full}.br`) ? readFileSync(`${full}.br`) : undefined,
          etag: `"${createHash('sha1').update(body).digest('base64url')}"`,
          immutable: name.startsWith('assets/'),
        })
      }
    }
  }
  walk('')
  return files
}

// Which copy to send: brotli, then gzip, by what the client says it accepts (q=0 refuses).
export const pickEncoding = (acceptEncoding: string | undefined, file: Pick<StaticFile, 'gzip' | 'br'>): 'br' | 'gzip' | undefined => {
  const accepted = new Set(
    (acceptEncoding ?? '')
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, q]) => !q || !/^\s*q=0(\.0*)?\s*$/.test(q))
      .map(([name]) => name.trim().toLowerCase()),
  )
  if (file.br && accepted.has('br')) return 'br'
  if (file.gzip && accepted.has('gzip')) return 'gzip'
  return undefined
}

export const serveStaticFile = (file: StaticFile, req: Request): Reply => {
  const headers: Record<string, string> = {
    'content-type': file.type,
    'cache-control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    etag: file.etag,
    vary: 'Accept-Encoding',
    'x-content-type-options': 'nosniff',
  }
  if (file.type.startsWith('text/html')) {
    headers['content-security-policy'] = "default-src 'self'; img-src 'self' data:; style-src 'self'; frame-ancestors 'none'"
    headers['referrer-policy'] = 'same-origin'
  }
  if (req.header('if-none-match') === file.etag) return { status: 304, headers }
  const encoding = pickEncoding(req.header('accept-encoding'), file)
  if (encoding) headers['content-encoding'] = encoding
  return { status: 200, headers, body: encoding === 'br' ? file.br : encoding === 'gzip' ? file.gzip : file.body }
}

// GET / is index.html; GET /assets/:file the bundle. Nothing else is looked up on disk.
export const staticRoutes = (files: Map<string, StaticFile>): Route[] => {
  const index = files.get('index.html')
  if (!index) return []
  return [
    { method: 'GET', path: '/', access: 'public', handler: (req) => serveStaticFile(index, req) },
    {
      method: 'GET',
      path: '/assets/:file',
      access: 'public',
      handler: (req) => {
        const file = files.get(`assets/${req.params.file}`)
        if (!file) throw new DomainError('NotFoundError', `There is no asset named ${req.params.file.slice(0, 200)}.`)
        return serveStaticFile(file, req)
      },
    },
  ]
}

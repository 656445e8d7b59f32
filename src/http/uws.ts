// Which native uWebSockets.js build serves. Two are installed (docs/uws-builds.md says where each comes
// from): the current one, whose Linux binaries need glibc 2.38 and Node 20/22/24/25, and 20.30, the
// newest that runs on an older glibc (Node 16/18/20). The current one is tried first. 20.30's own entry
// point falls back to a pure-JS server when its binary does not load; that fallback is never used here:
// its binary is loaded directly, and where neither build loads the server refuses to start.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import type * as Uws from 'uWebSockets.js'

export type UwsModule = typeof Uws

export interface UwsBuild {
  // The package the binary came from and its version, e.g. "@btc-vision/uwebsockets.js 20.57.0".
  readonly name: string
  readonly version: string
  readonly uws: UwsModule
}

const require = createRequire(import.meta.url)

const packageOf = (entry: string): { name: string; version: string; dir: string } => {
  // Resolved through the entry point: the current build's exports map hides its package.json.
  const dir = path.dirname(require.resolve(entry))
  const manifest = path.basename(dir) === 'src' ? path.join(dir, '..', 'package.json') : path.join(dir, 'package.json')
  const { name, version } = JSON.parse(readFileSync(manifest, 'utf8')) as { name: string; version: string }
  return { name, version, dir: path.dirname(manifest) }
}

const binaryName = `uws_${process.platform}_${process.arch}_${process.versions.modules}.node`

const current = (): UwsBuild => {
  const { name, version } = packageOf('uWebSockets.js')
  return { name, version, uws: require('uWebSockets.js') as UwsModule }
}

const legacy = (): UwsBuild => {
  const { name, version, dir } = packageOf('uWebSockets.js-20.30')
  return { name, version, uws: require(path.join(dir, 'binaries', binaryName)) as UwsModule }
}

export const glibcVersion = (): string => {
  const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header
  return header?.glibcVersionRuntime ?? 'none'
}

const firstLine = (error: unknown): string => {
  const text = error instanceof Error ? error.message : String(error)
  const lines = text.split('\n').map((line) => line.trim()).filter(Boolean)
  // uWS's own message is a paragraph; the loader's reason (a missing symbol or file) is its last line.
  return (lines.at(-1) ?? '').slice(0, 300)
}

export const loadUws = (attempts: readonly (() => UwsBuild)[] = [current, legacy]): UwsBuild => {
  const reasons: string[] = []
  for (const attempt of attempts) {
    try {
      return attempt()
    } catch (error) {
      reasons.push(firstLine(error))
    }
  }
  throw new Error(
    `No uWebSockets.js build loads on Node ${process.version} (ABI ${process.versions.modules}, ${process.platform}-${process.arch}, glibc ${glibcVersion()}): ` +
      `20.57 needs glibc 2.38 or newer with Node 20, 22, 24 or 25; 20.30 needs Node 20 or older. ` +
      `Use Node 24 on a platform with glibc 2.38 or newer, or Node 20 on an older one. (${reasons.join('; ')})`,
  )
}

let loaded: UwsBuild | undefined

// The build every part of the process uses, loaded on first use.
export const uwsBuild = (): UwsBuild => (loaded ??= loadUws())

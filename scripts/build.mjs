// Builds dist/ only when a source changed since the last successful build, so `npm start` serves in
// about a second on a restart; tsc's own --incremental makes a real rebuild cheaper too.
// Two parts with their own stamps: the server (tsc into dist/) and the web UI (ui/src type-checked,
// bundled by esbuild into dist/public with hashed names and .gz/.br copies the server serves as they are).
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zlib from 'node:zlib'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const force = process.argv.includes('--force')
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')

// Directories count too: deleting or renaming a file changes its directory's mtime.
const newestMtime = (target) => {
  if (!existsSync(target)) return 0
  const stats = statSync(target)
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = stats.mtimeMs
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)))
  return newest
}

const upToDate = (stamp, inputs) => {
  if (force || !existsSync(stamp)) return false
  const newestInput = Math.max(...inputs.map((input) => newestMtime(path.join(root, input))))
  return statSync(stamp).mtimeMs >= newestInput
}

const runTsc = (args) => spawnSync(process.execPath, [tsc, ...args], { cwd: root, stdio: 'inherit' }).status === 0

const buildServer = () => {
  const stamp = path.join(root, 'dist', '.build-stamp')
  if (upToDate(stamp, ['src', 'test', 'bench', 'ui', 'tsconfig.json', 'package-lock.json'])) return true
  // A first build takes a minute or two on 2 cores, and says nothing else while it runs.
  console.error('building the server: compiling src/, test/ and bench/ with tsc (first build: 1-2 minutes on 2 cores) ...')
  if (!runTsc(['-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'])) return false
  writeFileSync(stamp, `${new Date().toISOString()}\n`)
  return true
}

const buildUi = async () => {
  const out = path.join(root, 'dist', 'public')
  const stamp = path.join(root, 'dist', '.ui-build-stamp')
  if (upToDate(stamp, ['ui/src', 'ui/index.html', 'ui/tsconfig.json', 'package-lock.json', 'scripts/build.mjs'])) return true
  console.error('building the web UI: type-checking ui/ and bundling it with esbuild ...')
  if (!runTsc(['-p', 'ui/tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.ui-tsbuildinfo'])) return false
  const { build } = await import('esbuild')
  rmSync(out, { recursive: true, force: true })
  const result = await build({
    entryPoints: { app: path.join(root, 'ui/src/main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    entryNames: '[name]-[hash]',
    outdir: path.join(out, 'assets'),
    metafile: true,
    legalComments: 'none',
    logLevel: 'warning',
  })
  const outputs = Object.keys(result.metafile.outputs).map((file) => path.basename(file))
  const script = outputs.find((name) => name.endsWith('.js'))
  const style = outputs.find((name) => name.endsWith('.css'))
  const html = readFileSync(path.join(root, 'ui/index.html'), 'utf8')
    .replace('%SCRIPT%', `/assets/${script}`)
    .replace('%STYLE%', style ? `<link rel="stylesheet" href="/assets/${style}">` : '')
  writeFileSync(path.join(out, 'index.html'), html)
  // Compressed once here, served from memory as they are.
  const sizes = []
  for (const file of ['index.html', ...outputs.map((name) => `assets/${name}`)]) {
    const body = readFileSync(path.join(out, file))
    const gzip = zlib.gzipSync(body, { level: 9 })
    const br = zlib.brotliCompressSync(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } })
    writeFileSync(path.join(out, `${file}.gz`), gzip)
    writeFileSync(path.join(out, `${file}.br`), br)
    sizes.push({ file, bytes: body.length, gzip: gzip.length, br: br.length })
  }
  writeFileSync(path.join(out, 'manifest.json'), `${JSON.stringify({ sizes }, null, 2)}\n`)
  const js = sizes.filter((s) => s.file.endsWith('.js')).reduce((sum, s) => sum + s.gzip, 0)
  console.log(`ui: ${script} ${(js / 1024).toFixed(1)} KB of JavaScript gzipped`)
  writeFileSync(stamp, `${new Date().toISOString()}\n`)
  return true
}

mkdirSync(path.join(root, 'dist'), { recursive: true })
if (!buildServer()) process.exit(1)
if (!(await buildUi())) process.exit(1)

// Builds dist/ only when a source changed since the last successful build, so `npm start` serves in
// about a second on a restart; tsc's own --incremental makes a real rebuild cheaper too.
import { spawnSync } from 'node:child_process'
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const stamp = path.join(root, 'dist', '.build-stamp')
const inputs = ['src', 'test', 'bench', 'tsconfig.json', 'package-lock.json']

// Directories count too: deleting or renaming a file changes its directory's mtime.
const newestMtime = (target) => {
  if (!existsSync(target)) return 0
  const stats = statSync(target)
  if (!stats.isDirectory()) return stats.mtimeMs
  let newest = stats.mtimeMs
  for (const entry of readdirSync(target)) newest = Math.max(newest, newestMtime(path.join(target, entry)))
  return newest
}

const force = process.argv.includes('--force')
const newestInput = Math.max(...inputs.map((input) => newestMtime(path.join(root, input))))
if (!force && existsSync(stamp) && statSync(stamp).mtimeMs >= newestInput) process.exit(0)

const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc')
const built = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json', '--incremental', '--tsBuildInfoFile', 'dist/.tsbuildinfo'], {
  cwd: root,
  stdio: 'inherit',
})
if (built.status !== 0) process.exit(built.status ?? 1)
writeFileSync(stamp, `${new Date().toISOString()}\n`)

import { readdirSync } from 'node:fs'
import path from 'node:path'

// Every TypeScript source file under `dir` (declaration files left out): what the code-reading tests scan.
export const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(full)
    return /\.(ts|mts|cts)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [full] : []
  })

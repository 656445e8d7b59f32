// Module hooks that run the TypeScript of src/, test/, bench/ and ui/ in tests by stripping its types
// with esbuild (registered by scripts/ts-loader.mjs).
import { existsSync, realpathSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { transform } from 'esbuild'

const tsExtension = /\.(m?ts|tsx)$/
// NodeNext style: `./x.js` names the file `./x.ts` (or .tsx) before it is compiled.
const sourceOf = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.jsx': ['.tsx'] }

const isFile = (file) => existsSync(file) && statSync(file).isFile()

// A relative or absolute specifier naming a file of this checkout is resolved here, without the hooks
// registered before these (tap's ts-node loader: a fraction of a second per test process).
const resolveFile = (specifier, parentURL) => {
  if (!/^(\.{1,2}\/|\/|file:)/.test(specifier) || !parentURL?.startsWith('file:')) return undefined
  const url = new URL(specifier, parentURL)
  if (url.search || url.hash || url.pathname.includes('/node_modules/')) return undefined
  const file = fileURLToPath(url)
  if (isFile(file)) return file
  const extension = /\.[^./]+$/.exec(file)?.[0]
  for (const source of sourceOf[extension] ?? []) {
    const candidate = file.slice(0, -extension.length) + source
    if (isFile(candidate)) return candidate
  }
  return undefined
}

export async function resolve(specifier, context, next) {
  const file = resolveFile(specifier, context.parentURL)
  if (file === undefined) return next(specifier, context)
  return { url: pathToFileURL(realpathSync(file)).href, shortCircuit: true }
}

export async function load(url, context, next) {
  if (!url.startsWith('file:') || !tsExtension.test(new URL(url).pathname) || url.includes('/node_modules/')) return next(url, context)
  const file = fileURLToPath(url)
  const source = await readFile(file, 'utf8')
  const { code } = await transform(source, {
    loader: file.endsWith('x') ? 'tsx' : 'ts',
    format: 'esm',
    target: 'es2022',
    sourcemap: 'inline',
    sourcefile: file,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true, jsx: 'react-jsx', jsxImportSource: 'preact' } },
  })
  return { format: 'module', source: code, shortCircuit: true }
}

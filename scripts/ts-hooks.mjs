// Module hooks that run the TypeScript of src/, test/, bench/ and ui/ in tests by stripping types with
// esbuild (registered by scripts/ts-loader.mjs).
import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'
import { transform } from 'esbuild'

const tsExtension = /\.(m?ts|tsx)$/

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context)
  } catch (error) {
    // NodeNext style: `./x.js` names the file `./x.ts` (or .tsx) before it is compiled.
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !/^\.{1,2}\/.*\.(m?js|jsx)$/.test(specifier) || !context.parentURL?.startsWith('file:')) throw error
    for (const [from, to] of [['.js', '.ts'], ['.js', '.tsx'], ['.mjs', '.mts'], ['.jsx', '.tsx']]) {
      if (!specifier.endsWith(from)) continue
      try {
        return await next(specifier.slice(0, -from.length) + to, context)
      } catch {}
    }
    throw error
  }
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

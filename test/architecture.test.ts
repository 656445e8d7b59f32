import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'
import { sourceFiles } from './helpers/source-files.js'

// Imports point one way (STYLE 2, ARCHITECTURE): this scans every import of src/ and fails on the
// ones that point back. A violation names the file and line so that it can be fixed, not excused.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const src = path.join(root, 'src')

interface Import {
  file: string // relative to src/, e.g. domain/features.ts
  line: number
  specifier: string
  // Resolved path relative to src/ for relative specifiers (domain/errors.ts), else the package name.
  target: string
  // `import type` / `export type`: erased under verbatimModuleSyntax, so nothing loads at run time.
  typeOnly: boolean
}

const packageOf = (specifier: string) => (specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0])

const importsOf = (file: string, text: string): Import[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  const found: Import[] = []
  const add = (node: ts.Node, specifier: string, typeOnly: boolean) => {
    const target = specifier.startsWith('.')
      ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)).replace(/\.js$/, '.ts')
      : packageOf(specifier)
    found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, specifier, target, typeOnly })
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node, node.moduleSpecifier.text, node.importClause?.isTypeOnly ?? false)
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node, node.moduleSpecifier.text, node.isTypeOnly)
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference) && ts.isStringLiteral(node.moduleReference.expression)) {
      add(node, node.moduleReference.expression.text, node.isTypeOnly)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword && node.arguments[0] && ts.isStringLiteral(node.arguments[0])) {
      add(node, node.arguments[0].text, false)
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node, node.argument.literal.text, true)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const allImports = sourceFiles(src).flatMap((full) => importsOf(path.relative(src, full).split(path.sep).join('/'), readFileSync(full, 'utf8')))

const folderOf = (relative: string) => relative.split('/')[0]
const isInside = (target: string, folder: string) => target.startsWith(`${folder}/`)
const from = (folder: string) => allImports.filter((i) => folderOf(i.file) === folder)
const show = (i: Import) => `src/${i.file}:${i.line} imports ${i.typeOnly ? 'type from ' : ''}'${i.specifier}'`

type TestContext = Parameters<Parameters<typeof t.test>[0]>[0]

const assertNone = (t: TestContext, violations: Import[], rule: string) => {
  t.same(violations.map(show), [], rule)
}

t.test('the scanner', async (t) => {
  const sample = importsOf(
    'read/example.ts',
    [
      "import { a } from '../actors/registry.js'",
      "import type { B } from '../store/log.js'",
      "import { type C } from '../domain/x.js'",
      "export { d } from './d.js'",
      "export type { E } from '../schemas/e.js'",
      "import * as v from 'valibot'",
      "import '@scope/pkg/side-effect'",
      "const lazy = await import('../eval/compile.js')",
      "type F = import('../http/types.js').Request",
      '// import { no } from "../actors/comment.js"',
      "const text = \"import { no } from '../store/string.js'\"",
    ].join('\n'),
  )
  t.same(
    sample.map((i) => [i.target, i.typeOnly, i.line]),
    [
      ['actors/registry.ts', false, 1],
      ['store/log.ts', true, 2],
      ['domain/x.ts', false, 3],
      ['read/d.ts', false, 4],
      ['schemas/e.ts', true, 5],
      ['valibot', false, 6],
      ['@scope/pkg', false, 7],
      ['eval/compile.ts', false, 8],
      ['http/types.ts', true, 9],
    ],
    'finds every kind of import, and only real ones; `import { type C }` still loads the module',
  )
  t.ok(from('domain').length > 20, 'src/domain is scanned')
  t.ok(allImports.some((i) => i.file === 'http/router.ts' && i.target === 'domain/errors.ts'), 'a known import is found')
  for (const folder of ['domain', 'store', 'http', 'actors']) t.ok(from(folder).length > 0, `src/${folder} has imports`)
})

t.test('src/eval and src/read import nothing from src/actors, src/store or valibot', async (t) => {
  for (const folder of ['eval', 'read']) {
    assertNone(
      t,
      from(folder).filter((i) => isInside(i.target, 'actors') || isInside(i.target, 'store') || i.target === 'valibot'),
      `src/${folder}`,
    )
  }
})

t.test('src/domain imports nothing from src/http, src/api, src/actors or src/store', async (t) => {
  assertNone(
    t,
    from('domain').filter((i) => ['http', 'api', 'actors', 'store'].some((folder) => isInside(i.target, folder))),
    'src/domain',
  )
})

t.test('src/domain takes only types from the rest of src/ (type-only imports of schemas)', async (t) => {
  assertNone(
    t,
    from('domain').filter((i) => i.target.endsWith('.ts') && folderOf(i.target) !== 'domain' && !i.typeOnly),
    'src/domain: value imports from outside src/domain',
  )
  assertNone(
    t,
    from('domain').filter((i) => i.target.endsWith('.ts') && folderOf(i.target) !== 'domain' && folderOf(i.target) !== 'schemas'),
    'src/domain: imports from outside src/domain and src/schemas',
  )
})

t.test('src/eval takes only types from the rest of src/', async (t) => {
  assertNone(t, from('eval').filter((i) => i.target.endsWith('.ts') && folderOf(i.target) !== 'eval' && !i.typeOnly), 'src/eval')
})

t.test('src/store imports nothing from src/domain', async (t) => {
  assertNone(t, from('store').filter((i) => isInside(i.target, 'domain')), 'src/store')
})

t.test('src/http imports from src/domain only domain/errors.ts', async (t) => {
  assertNone(t, from('http').filter((i) => isInside(i.target, 'domain') && i.target !== 'domain/errors.ts'), 'src/http')
})

t.test('routes reach the actors through the command and read ports only (src/api/ports.ts): no registry, no actor snapshot, no timer', async (t) => {
  assertNone(t, from('api').filter((i) => i.target === 'actors/registry.ts' || i.target === 'actors/committed-reads.ts'), 'src/api: imports of the registry')
  const apiFiles = sourceFiles(path.join(src, 'api'))
  t.ok(apiFiles.length > 30, 'src/api is scanned')
  const found = apiFiles.flatMap((full) =>
    readFileSync(full, 'utf8')
      .split('\n')
      .flatMap((line, i) => (/\bgetSnapshot\(|\bsetInterval\(|\bsetTimeout\(/.test(line) ? [`src/${path.relative(src, full)}:${i + 1}: ${line.trim()}`] : [])),
  )
  t.same(found, [], 'src/api: actor snapshots read or timers started by routes')
})

t.test('src/sign-in (sessions, failed sign-ins, user activity: side tables routes write) imports nothing from src/actors, src/api or src/store', async (t) => {
  t.ok(from('sign-in').length > 0, 'src/sign-in has imports')
  assertNone(t, from('sign-in').filter((i) => ['actors', 'api', 'store'].some((folder) => isInside(i.target, folder))), 'src/sign-in')
})

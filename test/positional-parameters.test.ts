import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import t from 'tap'
import ts from 'typescript'
import { sourceFiles } from './helpers/source-files.js'

// Pass the command, not its fields: a decision that takes more than four positional parameters has
// unpacked an object its caller already held, and every call restates that object's fields in an
// order only the signature knows. This scans every function of src/domain and fails naming the ones
// that take more, so that they are given the command (or a named object), not an exception.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const domain = path.join(root, 'src', 'domain')
const maxParameters = 4

interface FunctionSite {
  file: string // relative to the repository, e.g. src/domain/strategies.ts
  line: number
  name: string
  parameters: number
}

// What a function is called by: its own name, the variable or property it is assigned to, or its kind.
const nameOf = (node: ts.SignatureDeclaration): string => {
  if (node.name) return node.name.getText()
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) return parent.name.getText()
  return ts.isArrowFunction(node) ? '(arrow function)' : '(function expression)'
}

// Functions with a body or an overload signature, not function types: those only describe one.
const isFunction = (node: ts.Node): node is ts.SignatureDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node)

const functionsOf = (file: string, text: string): FunctionSite[] => {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  const found: FunctionSite[] = []
  const visit = (node: ts.Node) => {
    if (isFunction(node)) {
      // A `this` parameter is a type annotation, not an argument.
      const parameters = node.parameters.filter((p) => p.name.getText() !== 'this').length
      found.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, name: nameOf(node), parameters })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

const domainFunctions = sourceFiles(domain).flatMap((full) => functionsOf(path.relative(root, full).split(path.sep).join('/'), readFileSync(full, 'utf8')))

const show = (site: FunctionSite) => `${site.file}:${site.line} ${site.name} takes ${site.parameters} positional parameters`

t.test('the scanner', async (t) => {
  const sample = functionsOf(
    'src/domain/example.ts',
    [
      'export const arrow = (a: number, b: number, c: number, d: number, e: number) => a',
      'export function declared(a: number, { b, c }: { b: number; c: number }, ...rest: number[]) { return a }',
      'const expression = function (this: unknown, a: number) { return a }',
      'class Example {',
      '  constructor(a: number, b: number) {}',
      '  method(a: number) { return [1].map((x, i) => x + i) }',
      '}',
      'type Shape = (a: number, b: number, c: number, d: number, e: number, f: number) => void',
      'interface Port { call(a: number, b: number, c: number, d: number, e: number): void }',
    ].join('\n'),
  )
  t.same(
    sample.map((site) => [site.name, site.parameters, site.line]),
    [
      ['arrow', 5, 1],
      ['declared', 3, 2],
      ['expression', 1, 3],
      ['constructor', 2, 5],
      ['method', 1, 6],
      ['(arrow function)', 2, 6],
    ],
    'finds arrows, declarations, expressions, constructors, methods and nested callbacks; a destructured object and a rest are one each, `this` none; function types are not functions',
  )
  t.ok(domainFunctions.length > 100, 'src/domain is scanned')
  t.ok(domainFunctions.some((site) => site.file === 'src/domain/project.ts' && site.name === 'decideProject'), 'a known decision is found')
})

t.test(`no function in src/domain takes more than ${maxParameters} positional parameters`, async (t) => {
  t.same(domainFunctions.filter((site) => site.parameters > maxParameters).map(show), [], 'pass the command (or a named object) instead')
})

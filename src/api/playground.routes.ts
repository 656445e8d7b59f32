import type { Route } from '../http/types.js'
import type { Evaluators } from '../read/evaluators.js'
import { advancedPlaygroundRequestSchema, playgroundRequestSchema } from '../schemas/playground.js'
import { json, type ApiDeps } from './deps.js'
import { committedEnvironment } from './lookups.js'
import { parseTransient } from './parse.js'
import { Utf8Builder } from '../eval/utf8-builder.js'
import { advancedPlaygroundResponse, playgroundResponse } from '../schemas/responses.js'
import { DomainError } from '../domain/errors.js'

// links.edit of a strategy is this + its URL-encoded id.
const editLinkPrefix = (encodedProject: string, encodedFeature: string, encodedEnvironment: string) =>
  `/projects/${encodedProject}/features/${encodedFeature}/strategies/edit?environmentId=${encodedEnvironment}&strategyId=`

// Unleash's advanced playground evaluates at most this many (environment, flag, context) triples.
const maxEvaluations = 15_000

type FlatContext = Record<string, string>

// Unleash's advanced playground: properties join the top-level fields, each string value is split at
// its commas, and every combination of the values is one context. Values that are not strings are
// left out and named in the answer's warnings.
const contextCombinations = (context: Record<string, unknown>): { contexts: FlatContext[]; invalid: string[] } => {
  const valuesByField: [string, string[]][] = []
  const invalid: string[] = []
  for (const [key, value] of Object.entries(context)) {
    if (key === 'properties' && value !== null && typeof value === 'object') {
      for (const [name, nested] of Object.entries(value)) if (typeof nested === 'string') valuesByField.push([name, nested.split(',')])
    } else if (typeof value === 'string') valuesByField.push([key, value.split(',')])
    else if (value !== undefined) invalid.push(key)
  }
  let contexts: FlatContext[] = [{}]
  for (const [field, values] of valuesByField) contexts = contexts.flatMap((c) => values.map((value) => ({ ...c, [field]: value })))
  return { contexts, invalid }
}

// The playground answers what an SDK would (SEMANTICS 6, following the SDK where Unleash's own differs).
// The evaluator writes the explanation as JSON from each flag's definition.
export const playgroundRoutes = (deps: ApiDeps, evaluators: Evaluators): Route[] => {
  // The next answer is most likely about as long as the last one (room to spare saves a copy).
  let expectedBytes = 64 * 1024
  // Answers run to megabytes. A buffer per answer, freed only when the GC gets to it, keeps tens of
  // them waiting at a time and grows the C heap for good; buffers are lent to each answer in turn (and
  // to the scratch the evaluator writes it into first, given back as soon as it is copied). A
  // large answer is held until the socket has taken it (src/http/server.ts), so the next may be made
  // while it goes out: a few are kept.
  const maxSpares = 2
  const spares: Buffer[] = []
  const lend = (): Utf8Builder => {
    const spare = spares.pop()
    return new Utf8Builder(spare !== undefined && spare.length >= expectedBytes ? spare : expectedBytes)
  }
  // One much larger than answers are now is let go.
  const giveBack = (builder: Utf8Builder) => () => {
    if (builder.storage.length <= 2 * expectedBytes && spares.length < maxSpares) spares.push(builder.storage)
  }
  const linkMakerFor = (environment: string) => {
    const encoded = encodeURIComponent(environment)
    return (project: string, feature: string) => editLinkPrefix(project, feature, encoded)
  }
  return [
    {
      method: 'POST',
      path: '/api/admin/playground',
      access: 'admin',
      body: true,
      docs: { body: playgroundRequestSchema, responses: { 200: playgroundResponse } },
      handler: (req) => {
        const input = parseTransient(playgroundRequestSchema, req.body)
        // Before any evaluator is built: one is kept per environment evaluated.
        committedEnvironment(deps, input.environment)
        const evaluator = evaluators.for(input.environment)
        const projects = input.projects
        const inScope = projects === '*' ? () => true : (project: string) => projects.includes(project)
        deps.served.evaluations++
        const body = lend().write(`{"input":${JSON.stringify(input)},"features":`)
        const scratch = lend()
        evaluator.explainAll(input.context, inScope, linkMakerFor(input.environment), body, scratch)
        giveBack(scratch)()
        expectedBytes = Math.ceil(body.write('}').byteLength * 1.125)
        return { status: 200, body: body.bytes(), headers: { 'content-type': 'application/json; charset=utf-8' }, release: giveBack(body) }
      },
    },
    {
      method: 'POST',
      path: '/api/admin/playground/advanced',
      access: 'admin',
      body: true,
      docs: { body: advancedPlaygroundRequestSchema, responses: { 200: advancedPlaygroundResponse } },
      handler: (req) => {
        const input = parseTransient(advancedPlaygroundRequestSchema, req.body)
        for (const environment of input.environments) committedEnvironment(deps, environment)
        const { contexts, invalid } = contextCombinations(input.context)
        const projects = input.projects
        const inScope = projects === '*' ? () => true : (project: string) => projects.includes(project)
        let flags = 0
        for (const project of deps.reads.projects.values()) {
          if (inScope(project.settings.id)) for (const f of project.features.values()) if (!f.archived) flags++
        }
        const total = input.environments.length * flags * contexts.length
        if (total > maxEvaluations) {
          throw new DomainError(
            'BadDataError',
            `Rejecting evaluation as it would generate ${total} combinations exceeding ${maxEvaluations} limit. Please reduce the number of selected environments (${input.environments.length}), features (${flags}), context field combinations (${contexts.length}).`,
          )
        }
        // Each (environment, context) is the plain playground's answer; grouped by flag, then environment.
        const byFlag = new Map<string, { name: string; projectId: string; environments: Record<string, unknown[]> }>()
        let scratch = new Utf8Builder()
        for (const environment of input.environments) {
          const evaluator = evaluators.for(environment)
          for (const context of contexts) {
            deps.served.evaluations++
            const out = new Utf8Builder()
            scratch = new Utf8Builder(scratch.storage)
            evaluator.explainAll(context, inScope, linkMakerFor(environment), out, scratch)
            for (const result of JSON.parse(out.bytes().toString()) as { name: string; projectId: string }[]) {
              let flag = byFlag.get(result.name)
              if (!flag) byFlag.set(result.name, (flag = { name: result.name, projectId: result.projectId, environments: {} }))
              ;(flag.environments[environment] ??= []).push({ ...result, environment, context })
            }
          }
        }
        return json({ input, features: [...byFlag.values()], ...(invalid.length > 0 ? { warnings: { invalidContextProperties: invalid } } : {}) })
      },
    },
  ]
}

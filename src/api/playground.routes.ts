import type { Route } from '../http/types.js'
import type { Evaluators } from '../read/evaluators.js'
import { playgroundRequestSchema } from '../schemas/playground.js'
import type { ApiDeps } from './deps.js'
import { committedEnvironment } from './lookups.js'
import { parse } from './parse.js'
import { Utf8Builder } from '../eval/utf8-builder.js'
import { playgroundResponse } from '../schemas/responses.js'

// links.edit of a strategy is this + its URL-encoded id.
const editLinkPrefix = (encodedProject: string, encodedFeature: string, encodedEnvironment: string) =>
  `/projects/${encodedProject}/features/${encodedFeature}/strategies/edit?environmentId=${encodedEnvironment}&strategyId=`

// The playground answers what an SDK would (SEMANTICS 6, following the SDK where Unleash's own differs).
// The evaluator writes the explanation as JSON from fragments compiled with each flag.
export const playgroundRoutes = (deps: ApiDeps, evaluators: Evaluators): Route[] => {
  // The next answer is most likely about as long as the last one (room to spare saves a copy).
  let expectedBytes = 64 * 1024
  // Answers run to megabytes. A buffer per answer, freed only when the GC gets to it, keeps tens of
  // them waiting at a time and grows the C heap for good; one buffer is lent to each answer in turn.
  let spare: Buffer | undefined
  const lend = (): Utf8Builder => {
    const lent = spare !== undefined && spare.length >= expectedBytes ? spare : undefined
    spare = undefined
    return new Utf8Builder(lent ?? expectedBytes)
  }
  // One much larger than answers are now is let go.
  const giveBack = (builder: Utf8Builder) => () => {
    if (builder.storage.length <= 2 * expectedBytes) spare = builder.storage
  }
  // One edit-link maker per environment, kept: the evaluator keeps each flag's prefix for its maker.
  const linkMakers = new Map<string, (encodedProject: string, encodedName: string) => string>()
  const linkMakerFor = (environment: string) => {
    let maker = linkMakers.get(environment)
    if (maker === undefined) {
      const encoded = encodeURIComponent(environment)
      linkMakers.set(environment, (maker = (project, feature) => editLinkPrefix(project, feature, encoded)))
    }
    return maker
  }
  return [
    {
      method: 'POST',
      path: '/api/admin/playground',
      access: 'admin',
      body: true,
      docs: { body: playgroundRequestSchema, responses: { 200: playgroundResponse } },
      handler: (req) => {
        const input = parse(playgroundRequestSchema, req.body)
        // Before any evaluator is built: one is kept per environment evaluated.
        committedEnvironment(deps, input.environment)
        const evaluator = evaluators.for(input.environment)
        const projects = input.projects
        const inScope = projects === '*' ? () => true : (project: string) => projects.includes(project)
        deps.served.evaluations++
        const body = lend().write(`{"input":${JSON.stringify(input)},"features":`)
        evaluator.explainAll(input.context, inScope, linkMakerFor(input.environment), body)
        expectedBytes = Math.ceil(body.write('}').byteLength * 1.125)
        return { status: 200, body: body.bytes(), headers: { 'content-type': 'application/json; charset=utf-8' }, release: giveBack(body) }
      },
    },
  ]
}

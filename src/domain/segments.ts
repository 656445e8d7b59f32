import { limits } from './limits.js'
import type { UpsertSegment } from '../schemas/segments.js'
import { savedConstraint, validateConstraint } from './constraints.js'
import { DomainError, badData, fail, nameExists, notFound, ok, type Result } from './errors.js'
import { draft, type CommandMeta, type EventDraft } from './events.js'
import type { InstanceState, Segment } from './instance-state.js'


export interface SegmentWorld {
  projectExists: (id: string) => boolean
  // Projects whose strategies use the segment.
  usedInProjects: (segmentId: number) => string[]
}

const legalValuesOf = (state: InstanceState) => (name: string) => {
  const values = state.contextFields.get(name)?.legalValues ?? []
  return values.length > 0 ? new Set(values.map((v) => v.value)) : undefined
}

const validate = (state: InstanceState, input: UpsertSegment, world: SegmentWorld, id: number | undefined): DomainError | undefined => {
  for (const segment of state.segments.values()) {
    if (segment.name === input.name && segment.id !== id) return nameExists('Segment name already exists')
  }
  if (input.project && !world.projectExists(input.project)) return badData(`Project ${input.project} does not exist`)
  const values = input.constraints.reduce((sum, c) => sum + (c.values?.length ?? 0), 0)
  if (values > limits.segmentValues) return badData(`Segments may not have more than ${limits.segmentValues} values`)
  for (const constraint of input.constraints) {
    const error = validateConstraint(constraint, { legalValuesOf: legalValuesOf(state) })
    if (error) return error
  }
  return undefined
}

const segmentFrom = (input: UpsertSegment, id: number, createdAt: string, createdBy: string): Segment => ({
  id,
  name: input.name,
  description: input.description ?? null,
  project: input.project || null,
  constraints: input.constraints.map(savedConstraint),
  createdAt,
  createdBy,
})

// `id`: a segment copied from elsewhere keeps its id (strategies and SDKs name segments by id).
type CreateSegment = { type: 'segment.create'; input: UpsertSegment; id?: number; world: SegmentWorld; meta: CommandMeta }
type UpdateSegment = { type: 'segment.update'; id: number; input: UpsertSegment; world: SegmentWorld; meta: CommandMeta }
type DeleteSegment = { type: 'segment.delete'; id: number; world: SegmentWorld; meta: CommandMeta }

export type SegmentCommand = CreateSegment | UpdateSegment | DeleteSegment

export const decideCreateSegment = (state: InstanceState, { input, id: givenId, world, meta }: CreateSegment): Result<EventDraft[]> => {
  if (state.segments.size >= limits.segments) {
    return fail(new DomainError('ExceedsLimitError', `Failed to create segment. You can't create more than the established limit of ${limits.segments}.`))
  }
  const error = validate(state, input, world, undefined)
  if (error) return fail(error)
  if (givenId !== undefined && (!Number.isSafeInteger(givenId) || givenId < 1)) return fail(badData('A segment id is a positive integer'))
  if (givenId !== undefined && state.segments.has(givenId)) return fail(nameExists(`A segment with id ${givenId} already exists`))
  const id = givenId ?? Math.max(0, ...state.segments.keys()) + 1
  const segment = segmentFrom(input, id, meta.now, meta.actor.name)
  return ok([draft(meta, 'segment-created', { project: segment.project, data: segment })])
}

export const decideUpdateSegment = (state: InstanceState, { id, input, world, meta }: UpdateSegment): Result<EventDraft[]> => {
  const current = state.segments.get(id)
  if (!current) return fail(notFound(`Could not find segment with id ${id}`))
  const error = validate(state, input, world, id)
  if (error) return fail(error)
  if (input.project) {
    const elsewhere = world.usedInProjects(id).filter((p) => p !== input.project)
    if (elsewhere.length > 0) {
      return fail(badData(`Invalid project. Segment is being used by strategies in other projects: ${elsewhere.join(', ')}`))
    }
  }
  // Unleash 8.2 (side by side): a PUT that leaves the description out keeps it; the project left out is none.
  const next = segmentFrom({ ...input, description: input.description === undefined ? current.description : input.description }, id, current.createdAt, current.createdBy)
  if (JSON.stringify(next) === JSON.stringify(current)) return ok([])
  return ok([draft(meta, 'segment-updated', { project: next.project, data: next, preData: current })])
}

export const decideDeleteSegment = (state: InstanceState, { id, world, meta }: DeleteSegment): Result<EventDraft[]> => {
  const current = state.segments.get(id)
  if (!current) return fail(notFound(`Could not find segment with id ${id}`))
  if (world.usedInProjects(id).length > 0) return fail(new DomainError('ConflictError', 'The segment is in use by feature flag strategies and cannot be deleted.'))
  return ok([draft(meta, 'segment-deleted', { project: current.project, preData: current })])
}

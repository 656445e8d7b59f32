import { enqueueActions, setup } from 'xstate'
import { nameExists, notFound } from '../domain/errors.js'
import { decideCreateProject } from '../domain/projects.js'
import { decideProject, evolveProject, type ProjectCommand } from '../domain/project.js'
import type { ProjectState } from '../domain/project-state.js'
import type { Decision } from './decision.js'

export const projectMachine = setup({
  types: {
    context: {} as { state: ProjectState | undefined },
    input: {} as { state: ProjectState | undefined },
    events: {} as ProjectCommand,
    emitted: {} as Decision,
  },
  guards: {
    exists: ({ context }) => context.state !== undefined,
    isGone: ({ context }) => context.state === undefined,
  },
  actions: {
    decide: enqueueActions(({ context, event, enqueue }) => {
      const result =
        event.type === 'project.create'
          ? decideCreateProject(context.state, event.id, event.input, event.world, event.meta)
          : context.state
            ? decideProject(context.state, event)
            : { ok: false as const, error: notFound() }
      if (!result.ok) {
        enqueue.emit({ type: 'rejected', error: result.error })
        return
      }
      enqueue.assign({ state: result.value.reduce(evolveProject, context.state) })
      enqueue.emit({ type: 'decided', events: result.value })
    }),
    rejectExisting: enqueueActions(({ enqueue }) => {
      enqueue.emit({ type: 'rejected', error: nameExists('A project with this id already exists.') })
    }),
    rejectMissing: enqueueActions(({ enqueue }) => {
      enqueue.emit({ type: 'rejected', error: notFound('Project not found') })
    }),
  },
}).createMachine({
  id: 'project',
  context: ({ input }) => ({ state: input.state }),
  initial: 'booting',
  states: {
    booting: {
      always: [{ guard: 'exists', target: 'active' }, { target: 'absent' }],
    },
    absent: {
      always: { guard: 'exists', target: 'active' },
      on: {
        'project.create': { actions: 'decide' },
        '*': { actions: 'rejectMissing' },
      },
    },
    active: {
      always: { guard: 'isGone', target: 'deleted' },
      on: {
        'project.create': { actions: 'rejectExisting' },
        '*': { actions: 'decide' },
      },
    },
    deleted: {
      type: 'final',
    },
  },
})

import { enqueueActions, setup } from 'xstate'
import { decideInstance, evolveInstance, type InstanceCommand } from '../domain/instance.js'
import type { InstanceState } from '../domain/instance-state.js'
import type { Decision } from './decision.js'

export const instanceMachine = setup({
  types: {
    context: {} as { state: InstanceState },
    input: {} as { state: InstanceState },
    events: {} as InstanceCommand,
    emitted: {} as Decision,
  },
  actions: {
    decide: enqueueActions(({ context, event, enqueue }) => {
      const result = decideInstance(context.state, event)
      if (!result.ok) {
        enqueue.emit({ type: 'rejected', error: result.error })
        return
      }
      enqueue.assign({ state: result.value.reduce(evolveInstance, context.state) })
      enqueue.emit({ type: 'decided', events: result.value })
    }),
  },
}).createMachine({
  id: 'instance',
  context: ({ input }) => ({ state: input.state }),
  on: { '*': { actions: 'decide' } },
})

import { enqueueActions, setup } from 'xstate'
import type { ChangeRequest } from '../domain/change-request-state.js'
import { decideChangeRequest, evolveChangeRequest, type ChangeRequestCommand, type ChangeRequestCommandType } from '../domain/change-requests.js'
import { DomainError, notFound } from '../domain/errors.js'
import type { ChangeRequestStateName } from '../schemas/change-requests.js'
import type { Decision } from './decision.js'

const stateNodes: Record<ChangeRequestStateName, string> = {
  Draft: 'draft',
  'In review': 'inReview',
  Approved: 'approved',
  Scheduled: 'scheduled',
  Applied: 'applied',
  Cancelled: 'cancelled',
  Rejected: 'rejected',
}

const verbs: Record<ChangeRequestCommandType, string> = {
  'changeRequest.create': 'created again',
  'change.add': 'given new changes',
  'change.edit': 'edited',
  'change.discard': 'have changes removed',
  'title.set': 'retitled',
  'comment.add': 'commented on',
  discard: 'discarded',
  'state.review': 'sent to review',
  'state.approve': 'approved',
  'state.reject': 'rejected',
  'state.cancel': 'cancelled',
  'state.schedule': 'scheduled',
  'state.apply': 'applied',
  'schedule.fail': 'marked as failed',
  'schedule.suspend': 'suspended',
}

// The request's life: which steps each state accepts. The rules within a step are decideChangeRequest's.
const accepting = (...types: ChangeRequestCommandType[]) => Object.fromEntries(types.map((type) => [type, { actions: 'decide' as const }]))

// The machine's state always mirrors request.state, which the events set; after each step it follows.
const follow = (self: ChangeRequestStateName | undefined) =>
  (Object.keys(stateNodes) as ChangeRequestStateName[])
    .filter((state) => state !== self)
    .map((state) => ({ guard: { type: 'isIn' as const, params: { state } }, target: stateNodes[state] }))

export const changeRequestMachine = setup({
  types: {
    context: {} as { request: ChangeRequest | undefined },
    input: {} as { request: ChangeRequest | undefined },
    events: {} as ChangeRequestCommand,
    emitted: {} as Decision,
  },
  guards: {
    isIn: ({ context }, params: { state: ChangeRequestStateName }) => context.request !== undefined && context.request.state === params.state,
  },
  actions: {
    decide: enqueueActions(({ context, event, enqueue }) => {
      const result = decideChangeRequest(context.request, event)
      if (!result.ok) {
        enqueue.emit({ type: 'rejected', error: result.error })
        return
      }
      enqueue.assign({ request: result.value.reduce(evolveChangeRequest, context.request) })
      enqueue.emit({ type: 'decided', events: result.value })
    }),
    refuse: enqueueActions(({ context, event, enqueue }) => {
      const request = context.request
      const error = request
        ? new DomainError('BadDataError', `Change request ${request.id} is "${request.state}", so it cannot be ${verbs[event.type]}.`, [
            { message: `refused transition: ${event.type} in state ${request.state}` },
          ])
        : notFound('Could not find the change request')
      enqueue.emit({ type: 'rejected', error })
    }),
  },
}).createMachine({
  id: 'changeRequest',
  context: ({ input }) => ({ request: input.request }),
  initial: 'absent',
  states: {
    absent: {
      always: follow(undefined),
      on: { ...accepting('changeRequest.create'), '*': { actions: 'refuse' } },
    },
    draft: {
      always: follow('Draft'),
      on: {
        ...accepting('change.add', 'change.edit', 'change.discard', 'title.set', 'comment.add', 'discard', 'state.review', 'state.cancel'),
        '*': { actions: 'refuse' },
      },
    },
    inReview: {
      always: follow('In review'),
      on: {
        ...accepting('change.edit', 'change.discard', 'title.set', 'comment.add', 'state.approve', 'state.reject', 'state.cancel'),
        '*': { actions: 'refuse' },
      },
    },
    approved: {
      always: follow('Approved'),
      on: { ...accepting('comment.add', 'state.reject', 'state.cancel', 'state.schedule', 'state.apply'), '*': { actions: 'refuse' } },
    },
    scheduled: {
      always: follow('Scheduled'),
      on: {
        ...accepting('comment.add', 'state.reject', 'state.cancel', 'state.schedule', 'state.apply', 'schedule.fail', 'schedule.suspend'),
        '*': { actions: 'refuse' },
      },
    },
    applied: { on: { ...accepting('comment.add'), '*': { actions: 'refuse' } } },
    cancelled: { on: { ...accepting('comment.add'), '*': { actions: 'refuse' } } },
    rejected: { on: { ...accepting('comment.add'), '*': { actions: 'refuse' } } },
  },
})

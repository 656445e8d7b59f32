import t from 'tap'
import { CommitPipeline, commitStepOrder, type CommitStep } from '../../src/actors/commit-pipeline.js'
import type { EventRecord } from '../../src/domain/events.js'

// Every committed record goes through one ordered list of steps (src/actors/commit-pipeline.ts says why
// this order). Changing the order is a design change: this test is to be changed with it, on purpose.

const records = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => ({ id: from + i, type: 'feature-created' }) as EventRecord)

t.test('the order of the steps', async (t) => {
  t.same(commitStepOrder, ['revisions', 'deltas', 'streams', 'insights', 'search', 'snapshots', 'replication', 'listeners'])
})

t.test('a pipeline runs its steps in that order, whatever order they were given in', async (t) => {
  const ran: string[] = []
  const step = (name: string): CommitStep => () => ran.push(name)
  const pipeline = new CommitPipeline({
    replication: step('replication'),
    snapshots: step('snapshots'),
    insights: step('insights'),
    search: step('search'),
    streams: step('streams'),
    deltas: step('deltas'),
    revisions: step('revisions'),
  })
  pipeline.listen(step('metrics'))
  pipeline.listen(step('a test'))
  pipeline.run(records(1, 2))
  t.same(ran, ['revisions', 'deltas', 'streams', 'insights', 'search', 'snapshots', 'replication', 'metrics', 'a test'])
  t.same(pipeline.names, commitStepOrder)
})

t.test("a replica's pipeline has the SDK steps only, in the same order", async (t) => {
  const ran: string[] = []
  const pipeline = new CommitPipeline({ streams: () => ran.push('streams'), revisions: () => ran.push('revisions'), deltas: () => ran.push('deltas') })
  t.same(pipeline.names, ['revisions', 'deltas', 'streams', 'listeners'])
  pipeline.run(records(1, 1))
  t.same(ran, ['revisions', 'deltas', 'streams'])
})

t.test('records go through once, in log order', async (t) => {
  const seen: number[][] = []
  const pipeline = new CommitPipeline({ revisions: (batch) => seen.push(batch.map((r) => r.id)) }, 4)
  pipeline.run(records(5, 6))
  pipeline.run([])
  t.throws(() => pipeline.run(records(9, 9)), /arrived after 6/, 'a gap is a bug, not something to pass on')
  t.throws(() => pipeline.run(records(6, 7)), /arrived after 6/, 'and so is a record seen twice')
  pipeline.run(records(7, 7))
  t.same(seen, [[5, 6], [7]])
  t.equal(pipeline.lastId, 7)
  pipeline.restart(100)
  pipeline.run(records(101, 101))
  t.equal(pipeline.lastId, 101, 'a replica restored from a snapshot goes on from its position')
})

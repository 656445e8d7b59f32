import t from 'tap'
import type { Feature, ProjectState } from '../../src/domain/project-state.js'
import { Evaluators } from '../../src/read/evaluators.js'

const flag = (name: string, archived = false): Feature =>
  ({
    name,
    project: 'web',
    archived,
    impressionData: false,
    dependencies: [],
    environments: new Map([['development', { enabled: true, strategies: [], variants: [] }]]),
  }) as unknown as Feature

t.test('a sync compiles new and changed flags, and drops the archived and deleted ones, however they come together', async (t) => {
  let revision = 0
  let flags: Feature[] = [flag('a'), flag('b'), flag('c')]
  const evaluators = new Evaluators({
    projects: () => new Map([['web', { features: new Map(flags.map((f) => [f.name, f])) } as unknown as ProjectState]]),
    segments: () => new Map(),
    revision: () => revision,
  })
  const names = () => evaluators.for('development').featureNames().sort()
  t.same(names(), ['a', 'b', 'c'])
  t.equal(evaluators.counters.flagsCompiled, 3)

  flags = [flag('a'), flags[1], flag('c', true)]
  revision++
  t.same(names(), ['a', 'b'], 'an archived flag is dropped')
  t.equal(evaluators.counters.flagsCompiled, 4, 'the changed flag alone is compiled again')

  // As many flags as before: one deleted, one created.
  flags = [flags[0], flag('d')]
  revision++
  t.same(names(), ['a', 'd'], 'a flag deleted while another is created is dropped too')

  flags = []
  revision++
  t.same(names(), [])
})

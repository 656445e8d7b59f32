// Self and total time per function of a V8 .cpuprofile (`node --cpu-prof`), optionally only over a
// window of it: the samples between two times of the monotonic clock (process.hrtime in any process on
// this machine: V8 stamps its samples with the same clock), e.g. one phase of a benchmark.
import { readFileSync } from 'node:fs'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  startTime: number
  endTime: number
  samples: number[]
  timeDeltas: number[]
}

export interface FunctionTime {
  name: string
  selfMs: number
  totalMs: number
}

export interface ProfileSummary {
  sampledMs: number
  // Time in (program) and (idle): the thread waiting or outside JavaScript.
  idleMs: number
  functions: FunctionTime[]
  // Self time per source file (a package for node_modules, xstate's bundles as one).
  modules: { name: string; selfMs: number }[]
}

const moduleOf = (node: ProfileNode): string => {
  const { functionName, url } = node.callFrame
  if (functionName.startsWith('(')) return functionName
  const path = url.replace(/^file:\/\//, '')
  const pkg = /node_modules\/((@[^/]+\/)?[^/]+)/.exec(path)
  if (pkg) return pkg[1]
  if (/\/dist\/(raise|StateMachine|xstate-actors|log|assign)-[0-9a-f]+\.cjs\.js$/.test(path)) return 'xstate'
  const own = /\/dist\/((src|bench)\/.*)$/.exec(path)
  if (own) return own[1]
  return path.startsWith('node:') ? path : path || '(native)'
}

const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame
  const file = url.replace(/^file:\/\//, '').replace(/^.*\/(dist|node_modules)\//, '$1/')
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim()
}

// fromMicros/toMicros: hrtime in µs (Number(process.hrtime.bigint() / 1000n)).
export const summariseProfile = (file: string, fromMicros = -Infinity, toMicros = Infinity): ProfileSummary => {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id)
  const self = new Map<string, number>()
  const modules = new Map<string, number>()
  const total = new Map<string, number>()
  let sampledMs = 0
  let idleMs = 0
  let time = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i]
    if (time < fromMicros || time > toMicros) continue
    // A sample stands for the time until the next one.
    const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
    const node = byId.get(profile.samples[i])!
    sampledMs += ms
    const name = label(node)
    if (name === '(idle)' || name === '(program)') idleMs += ms
    self.set(name, (self.get(name) ?? 0) + ms)
    const module = moduleOf(node)
    modules.set(module, (modules.get(module) ?? 0) + ms)
    const seen = new Set<string>()
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const n = label(byId.get(id)!)
      if (seen.has(n)) continue
      seen.add(n)
      total.set(n, (total.get(n) ?? 0) + ms)
    }
  }
  const functions = [...total.entries()].map(([name, totalMs]) => ({ name, selfMs: self.get(name) ?? 0, totalMs }))
  return { sampledMs, idleMs, functions, modules: [...modules].map(([name, selfMs]) => ({ name, selfMs })).sort((a, b) => b.selfMs - a.selfMs) }
}

export const formatSummary = (summary: ProfileSummary, top = 30, per = 1, unit = 'ms'): string => {
  const scale = (ms: number) => (ms / per).toFixed(2)
  const bySelf = [...summary.functions].sort((a, b) => b.selfMs - a.selfMs).slice(0, top)
  const byTotal = [...summary.functions].sort((a, b) => b.totalMs - a.totalMs).slice(0, top)
  return [
    `sampled ${summary.sampledMs.toFixed(0)} ms, idle/program ${summary.idleMs.toFixed(0)} ms; below, per operation in ${unit}`,
    'self:',
    ...bySelf.map((f) => `  ${scale(f.selfMs).padStart(9)}  ${f.name}`),
    'total:',
    ...byTotal.map((f) => `  ${scale(f.totalMs).padStart(9)}  ${f.name}`),
    'self, by file or package:',
    ...summary.modules.slice(0, top).map((m) => `  ${scale(m.selfMs).padStart(9)}  ${m.name}`),
  ].join('\n')
}

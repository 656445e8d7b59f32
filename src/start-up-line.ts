import type { Recovered } from './actors/recovery.js'

const s = (seconds: number) => `${seconds < 0.1 ? seconds.toFixed(3) : seconds.toFixed(2)} s`

// One line for the log saying where a start-up's time went: the snapshot set (read and decoded), the
// read models restored from it, the records replayed after it, then the steps until requests are served
// (seconds from `marks`, in order), and how long after the process started serving began.
export const startUpLine = (recovered: Recovered, marks: readonly [string, number][]): string => {
  const { snapshot, readModels, replay } = recovered.seconds
  const source = recovered.fromSnapshot ? `snapshot ${s(snapshot)}` : `no usable snapshot (${s(snapshot)})`
  const phases = [source, `read models ${s(readModels)}`, `replay ${recovered.replayed} records ${s(replay)}`, ...marks.map(([name, seconds]) => `${name} ${s(seconds)}`)]
  return `start-up: ${phases.join(', ')}; serving ${s(performance.now() / 1000)} after the process started`
}

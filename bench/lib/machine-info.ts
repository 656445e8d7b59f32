import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import os from 'node:os'

export interface MachineInfo {
  node: string
  cpuModel: string
  cores: number
  memoryGiB: number
  kernel: string
}

export const machineInfo = (): MachineInfo => {
  let cpuModel = os.cpus()[0]?.model ?? 'unknown'
  try {
    const line = readFileSync('/proc/cpuinfo', 'utf8').split('\n').find((l) => l.startsWith('model name'))
    if (line) cpuModel = line.slice(line.indexOf(':') + 1).trim()
  } catch {
    // Not Linux: keep os.cpus()'s name.
  }
  return {
    node: process.version,
    cpuModel,
    cores: os.availableParallelism(),
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    kernel: `${os.type()} ${os.release()}`,
  }
}

export const describeMachine = (m: MachineInfo) => `Node ${m.node}, ${m.cpuModel}, ${m.cores} cores, ${m.memoryGiB} GiB, ${m.kernel}`

let ticksPerSecond: number | undefined
const clockTicks = (): number => {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticksPerSecond = 100
    }
  }
  return ticksPerSecond
}

export interface ProcessSample {
  rssBytes: number
  // The anonymous part of the RSS: the heap and native allocations, without the file-backed pages (the
  // program's code, and the LMDB data file's pages mapped for reading, which the kernel can drop).
  anonBytes: number
  // The highest RSS the process has had (VmHWM).
  peakRssBytes: number
  // user + system time of all the process's threads since it started, and the system part alone.
  cpuMs: number
  systemCpuMs: number
}

// Linux only: /proc/<pid>/status (VmRSS) and /proc/<pid>/stat (utime, stime).
export const sampleProcess = (pid: number): ProcessSample => {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const rssKb = Number(/^VmRSS:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN)
  const anonKb = Number(/^RssAnon:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN)
  const peakKb = Number(/^VmHWM:\s+(\d+)\s+kB/m.exec(status)?.[1] ?? Number.NaN)
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
  // The command name (field 2) may hold spaces; the fields after its closing paren are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  const ticks = Number(fields[11]) + Number(fields[12])
  const systemMs = (Number(fields[12]) * 1000) / clockTicks()
  return { rssBytes: rssKb * 1024, anonBytes: anonKb * 1024, peakRssBytes: peakKb * 1024, cpuMs: (ticks * 1000) / clockTicks(), systemCpuMs: systemMs }
}

export interface MachineCpuSample {
  // CPU time of all cores, busy and in total, since boot.
  busyMs: number
  totalMs: number
}

// Linux only: the "cpu" line of /proc/stat. Busy is everything but idle and iowait.
export const sampleMachineCpu = (): MachineCpuSample => {
  const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number)
  const total = ticks.reduce((a, b) => a + b, 0)
  const idle = ticks[3] + ticks[4]
  const perTick = 1000 / clockTicks()
  return { busyMs: (total - idle) * perTick, totalMs: total * perTick }
}

// Cost per case against the number of flags, from the JSON reports of several `npm run bench` runs at
// different --flags (issue 26): a Markdown table and an SVG chart of our server's CPU per response per case
// (log-log), where a case whose cost does not grow with the flags is a flat line.
// Run: node dist/bench/scale.js bench/results/bench-A.json bench/results/bench-B.json ... [--out DIR]
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { fixed, formatTable, thousands } from './lib/format-table.js'

interface Report {
  startedAt: string
  machine: { loadAverage: number[] }
  options: { flags: number; connections: number }
  seeding: { batchP50Ms?: number; lastFifthP50Ms?: number; serverCpuMsPerBatch?: number } | null
  restart: {
    start: { firstFeaturesMs: number; headersMs: number }
    // `settled` since the sixth session's runs.
    memory: { restarted: { rss: number; heapUsed: number }; settled?: { rss: number }; withEvaluator: { rss: number; heapUsed: number } }
    heapBytesPerFlag: number
    heapBytesPerFlagWithEvaluator: number
  } | null
  http: { case: string; server: string; requestsPerSecond: number; p99Ms: number; cpuMicrosPerRequest: number | null }[]
  eval: { engines: { label: string; mean: number }[] } | null
}

const { values: args, positionals } = parseArgs({ options: { out: { type: 'string' } }, allowPositionals: true })
if (positionals.length === 0) {
  console.error('usage: node dist/bench/scale.js REPORT.json... [--out DIR]')
  process.exit(2)
}
const reports = positionals.map((file) => JSON.parse(readFileSync(file, 'utf8')) as Report).sort((a, b) => a.options.flags - b.options.flags)
const MiB = 2 ** 20

const ours = (report: Report, name: string) => report.http.find((r) => r.case === name && r.server === 'ours')
const bare = (report: Report, name: string) => report.http.find((r) => r.case === name && r.server === 'bare uWS')
const caseNames = [...new Set(reports.flatMap((r) => r.http.filter((h) => h.server === 'ours').map((h) => h.case)))]

const columns = ['flags', 'load avg (1 min)', 'import ms/1,000 (p50, last fifth)', 'restart s (headers)', 'RSS MiB after restart (settled)', 'heap B/flag (+ evaluator)', 'eval ns']
const rows = reports.map((r) => [
  thousands(r.options.flags),
  fixed(r.machine.loadAverage[0], 1),
  r.seeding?.lastFifthP50Ms === undefined ? '-' : fixed(r.seeding.lastFifthP50Ms, 0),
  r.restart ? `${fixed(r.restart.start.firstFeaturesMs / 1000, 2)} (${fixed(r.restart.start.headersMs / 1000, 2)})` : '-',
  r.restart ? `${fixed(r.restart.memory.restarted.rss / MiB, 0)} (${r.restart.memory.settled ? fixed(r.restart.memory.settled.rss / MiB, 0) : '-'})` : '-',
  r.restart ? `${thousands(r.restart.heapBytesPerFlag)} (${thousands(r.restart.heapBytesPerFlagWithEvaluator)})` : '-',
  fixed(r.eval?.engines.find((e) => e.label.startsWith('ours'))?.mean ?? Number.NaN, 0),
])
const caseColumns = ['case', ...reports.map((r) => `${thousands(r.options.flags)} flags: CPU µs/resp, req/s, p99 ms, ours/bare req/s`)]
const caseRows = caseNames.map((name) => [
  name,
  ...reports.map((r) => {
    const o = ours(r, name)
    if (!o) return '-'
    const b = bare(r, name)
    return `${fixed(o.cpuMicrosPerRequest ?? Number.NaN, 1)}, ${thousands(o.requestsPerSecond)}, ${fixed(o.p99Ms, 1)}${b ? `, ${fixed(o.requestsPerSecond / b.requestsPerSecond, 2)}` : ''}`
  }),
])

// Server CPU µs per response per case against the flags, both axes log scale.
const chart = (): string => {
  const series = caseNames
    .map((name) => ({ name, points: reports.flatMap((r) => { const v = ours(r, name)?.cpuMicrosPerRequest; return v ? [{ flags: r.options.flags, us: v }] : [] }) }))
    .filter((s) => s.points.length > 0)
  const all = series.flatMap((s) => s.points)
  const [left, top, width, height] = [70, 40, 560, 320]
  const lx = (v: number) => Math.log10(v)
  const [x0, x1] = [lx(Math.min(...all.map((p) => p.flags))) - 0.1, lx(Math.max(...all.map((p) => p.flags))) + 0.1]
  const [y0, y1] = [Math.floor(lx(Math.min(...all.map((p) => p.us)))), Math.ceil(lx(Math.max(...all.map((p) => p.us))))]
  const x = (flags: number) => left + ((lx(flags) - x0) / (x1 - x0)) * width
  const y = (us: number) => top + height - ((lx(us) - y0) / (y1 - y0)) * height
  const colours = ['#2f6fb0', '#e08a1e', '#c0392b', '#27ae60', '#8e44ad', '#7f8c8d', '#d35400', '#16a085']
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${left + width + 190}" height="${top + height + 50}" font-family="sans-serif" font-size="12">`,
    '<rect width="100%" height="100%" fill="white"/>',
    `<text x="10" y="20" font-size="14" font-weight="bold">Server CPU per response (µs, log) against flags (log)</text>`,
  ]
  for (let d = y0; d <= y1; d++) {
    parts.push(`<line x1="${left}" y1="${y(10 ** d)}" x2="${left + width}" y2="${y(10 ** d)}" stroke="#ddd"/>`, `<text x="${left - 6}" y="${y(10 ** d) + 4}" text-anchor="end">${thousands(10 ** d)}</text>`)
  }
  for (const r of reports) parts.push(`<line x1="${x(r.options.flags)}" y1="${top}" x2="${x(r.options.flags)}" y2="${top + height}" stroke="#eee"/>`, `<text x="${x(r.options.flags)}" y="${top + height + 18}" text-anchor="middle">${thousands(r.options.flags)}</text>`)
  series.forEach((s, i) => {
    const colour = colours[i % colours.length]
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${s.points.map((p) => `${x(p.flags).toFixed(1)},${y(p.us).toFixed(1)}`).join(' ')}"/>`)
    for (const p of s.points) parts.push(`<circle cx="${x(p.flags).toFixed(1)}" cy="${y(p.us).toFixed(1)}" r="3" fill="${colour}"><title>${s.name} at ${thousands(p.flags)} flags: ${fixed(p.us, 1)} µs</title></circle>`)
    parts.push(`<rect x="${left + width + 20}" y="${top + i * 20}" width="10" height="10" fill="${colour}"/><text x="${left + width + 36}" y="${top + i * 20 + 9}">${s.name}</text>`)
  })
  parts.push(`<text x="${left + width / 2}" y="${top + height + 40}" text-anchor="middle">flags</text>`, '</svg>')
  return parts.join('\n')
}

const markdown = [formatTable(columns, rows), '', formatTable(caseColumns, caseRows)].join('\n')
console.log(markdown)
const out = path.resolve(args.out ?? path.join('bench', 'results'))
mkdirSync(out, { recursive: true })
const stamp = reports[reports.length - 1].startedAt.replace(/[:.]/g, '-')
const svgFile = path.join(out, `scale-${stamp}.svg`)
writeFileSync(svgFile, chart())
writeFileSync(path.join(out, `scale-${stamp}.md`), `${markdown}\n\n![server CPU per response against flags](${path.basename(svgFile)})\n`)
console.log(`\nchart: ${svgFile}`)

// A Markdown table padded for the terminal, so the same output reads in a shell and pastes into a README.
export const formatTable = (header: string[], rows: string[][]): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ')} |`
  const rule = `|${widths.map((w, i) => (i === 0 ? `:${'-'.repeat(w + 1)}` : `${'-'.repeat(w + 1)}:`)).join('|')}|`
  return [line(header), rule, ...rows.map(line)].join('\n')
}

export const fixed = (n: number, digits: number): string => (Number.isFinite(n) ? n.toFixed(digits) : '-')

export const thousands = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '-')

// ours / baseline, as "0.42x"
export const ratio = (ours: number, baseline: number): string =>
  Number.isFinite(ours) && Number.isFinite(baseline) && baseline !== 0 ? `${(ours / baseline).toFixed(2)}x` : '-'

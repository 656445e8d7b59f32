// A benchmark's knobs come from environment variables (BENCH_FLAGS=…); unset or empty keeps the default.
const read = (name: string, fallback: number, valid: (n: number) => boolean, what: string): number => {
  const raw = process.env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!valid(n) || n <= 0) throw new Error(`${name} must be a positive ${what}, got "${raw}"`)
  return n
}

export const positiveInteger = (name: string, fallback: number): number => read(name, fallback, Number.isSafeInteger, 'integer')

export const positiveNumber = (name: string, fallback: number): number => read(name, fallback, Number.isFinite, 'number')

import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { DomainError } from '../domain/errors.js'

const keyLength = 64
const cost = { N: 16384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }

const derive = (password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => scrypt(password, salt, keyLength, options, (error, key) => (error ? reject(error) : resolve(key))))

export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(16)
  const key = await derive(password, salt, cost)
  return `scrypt$${cost.N}$${cost.r}$${cost.p}$${salt.toString('base64')}$${key.toString('base64')}`
}

export const verifyPassword = async (password: string, stored: string | null): Promise<boolean> => {
  const parts = stored?.split('$') ?? []
  if (parts.length !== 6 || parts[0] !== 'scrypt') {
    // Spend the same time whether or not the user has a password, so timing does not tell.
    await derive(password, Buffer.alloc(16), cost)
    return false
  }
  const [, n, r, p, salt, hash] = parts
  const expected = Buffer.from(hash, 'base64')
  const key = await derive(password, Buffer.from(salt, 'base64'), { N: Number(n), r: Number(r), p: Number(p), maxmem: cost.maxmem })
  return key.length === expected.length && timingSafeEqual(key, expected)
}

// Unleash's OWASP rules for passwords.
export const checkPasswordStrength = (password: string): void => {
  const problems: string[] = []
  if (password.length < 10) problems.push('The password must be at least 10 characters long.')
  if (password.length > 128) problems.push('The password must be fewer than 128 characters.')
  if (!/[a-z]/.test(password)) problems.push('The password must contain at least one lowercase letter.')
  if (!/[A-Z]/.test(password)) problems.push('The password must contain at least one uppercase letter.')
  if (!/[0-9]/.test(password)) problems.push('The password must contain at least one number.')
  if (!/[^A-Za-z0-9]/.test(password)) problems.push('The password must contain at least one special character.')
  if (/(.)\1\1/.test(password)) problems.push('The password may not contain sequences of three or more repeated characters.')
  if (problems.length > 0) throw new DomainError('OwaspValidationError', problems[0], problems.map((message) => ({ message })))
}

import { randomUUID } from 'node:crypto'
import { flat } from './eval/flat-string.js'

// A new id for something kept (a strategy, a change request's step): a version 4 UUID, flat.
export const newId = (): string => flat(randomUUID())

import { createHash, type Hash } from 'node:crypto'

// The ETag of an admin read: weak, from the SHA-1 of its JSON text, given to the hash whole or in pieces
// (withEtag, a list answered in slices).
export const etagHash = (): Hash => createHash('sha1')

export const weakEtag = (hash: Hash): string => `W/"${hash.digest('base64url')}"`

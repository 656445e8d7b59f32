// The address a request came from behind `trusted` proxies that each append the address they were
// called from to X-Forwarded-For: the entry that many places from the right, the one the outermost
// trusted proxy saw. Entries to its left were written by the client (or proxies it chose) and prove
// nothing. With fewer entries than proxies the request did not pass them all: the socket's address.
export const forwardedClient = (socketAddress: string, forwardedFor: string | undefined, trusted: number): string => {
  if (trusted === 0 || forwardedFor === undefined) return socketAddress
  const entries = forwardedFor.split(',')
  if (entries.length < trusted) return socketAddress
  const entry = entries[entries.length - trusted].trim().toLowerCase()
  return entry === '' ? socketAddress : entry.slice(0, 100)
}

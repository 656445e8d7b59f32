// What the read paths served, in plain fields: incremented on the request path, read when scraped.
export class ServedCounts {
  // GET /api/client/features by how it was answered.
  readonly sdkPolls = { full: 0, notModified: 0, gzip: 0, brotli: 0 }
  // Requests answered by evaluating on the server (frontend API and playground); SDKs evaluate on their side.
  evaluations = 0
}

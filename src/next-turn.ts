// One turn of the event loop: what waited (requests, commits) runs before the caller goes on. Work cut
// into slices (a snapshot set, the search index's warm-up, a long list answered) awaits it between them.
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

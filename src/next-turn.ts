// One turn of the event loop: what waited (requests, commits) runs before the caller goes on.
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

// The clock of work cut into slices (a snapshot set, the search index's warm-up, a long list answered,
// an event search): `due` once a slice's time is up, then `next()` pauses (a turn of the event loop) and
// begins the next slice.
export class Slices {
  private began = performance.now()

  constructor(
    private readonly pause: () => Promise<void> = nextTurn,
    private readonly sliceMs = 4,
  ) {}

  get due(): boolean {
    return performance.now() - this.began >= this.sliceMs
  }

  async next(): Promise<void> {
    await this.pause()
    this.began = performance.now()
  }
}

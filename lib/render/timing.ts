/** The metrics of the Server-Timing header, in the order they are reported. */
export type Metric = 'redis' | 'tools' | 'render' | 'total'

/**
 * Where a request's time went, for the `Server-Timing` header. In production
 * Workers the clock moves only across I/O, so CPU-bound phases read as 0 ms.
 */
export class Timing {
  readonly #started = Date.now()
  readonly #spent: Record<Metric, number> = { redis: 0, tools: 0, render: 0, total: 0 }

  async measure<T>(metric: Metric, work: () => Promise<T>): Promise<T> {
    const start = Date.now()
    try {
      return await work()
    } finally {
      this.#spent[metric] += Date.now() - start
    }
  }

  measureSync<T>(metric: Metric, work: () => T): T {
    const start = Date.now()
    try {
      return work()
    } finally {
      this.#spent[metric] += Date.now() - start
    }
  }

  /** Time measured elsewhere, such as tool calls overlapping the render. */
  add(metric: Metric, ms: number): void {
    this.#spent[metric] += ms
  }

  header(): string {
    this.#spent.total = Date.now() - this.#started
    return (Object.entries(this.#spent) as [Metric, number][]).map(([m, ms]) => `${m};dur=${ms}`).join(', ')
  }
}

/** The metrics of the Server-Timing header, in the order they are reported. */
const METRICS = ['redis', 'tools', 'render', 'llm', 'total'] as const
export type Metric = (typeof METRICS)[number]

/**
 * Where a request's time went, for the `Server-Timing` header. In production
 * Workers the clock moves only across I/O, so CPU-bound phases read as 0 ms.
 * A render's metrics are always reported; `llm` once a chat measured it.
 */
export class Timing {
  readonly #started = Date.now()
  readonly #spent: Partial<Record<Metric, number>> = { redis: 0, tools: 0, render: 0 }

  async measure<T>(metric: Metric, work: () => Promise<T>): Promise<T> {
    const start = Date.now()
    try {
      return await work()
    } finally {
      this.#spent[metric] = (this.#spent[metric] ?? 0) + Date.now() - start
    }
  }

  measureSync<T>(metric: Metric, work: () => T): T {
    const start = Date.now()
    try {
      return work()
    } finally {
      this.#spent[metric] = (this.#spent[metric] ?? 0) + Date.now() - start
    }
  }

  /** Time measured elsewhere, such as tool calls overlapping the render. */
  add(metric: Metric, ms: number): void {
    this.#spent[metric] = (this.#spent[metric] ?? 0) + ms
  }

  header(): string {
    this.#spent.total = Date.now() - this.#started
    return METRICS.flatMap((m) => {
      const ms = this.#spent[m]
      return ms === undefined ? [] : [`${m};dur=${ms}`]
    }).join(', ')
  }
}

import type { ToolCall } from '../tools'

/** The metrics of the Server-Timing header, in the order they are reported. */
const METRICS = ['redis', 'tools', 'render', 'llm', 'total'] as const
export type Metric = (typeof METRICS)[number]

/** Where a render's time went, as `?explain=true` and draft renders answer it. */
export interface TimingReport {
  total_ms: number
  phases: Partial<Record<Exclude<Metric, 'total'>, number>>
  /** Each tool call, its start counted from the request's: a waterfall. */
  calls: { tool: string; start_ms: number; ms: number; outcome: ToolCall['outcome'] }[]
}

/**
 * Where a request's time went, for the `Server-Timing` header. In production
 * Workers the clock moves only across I/O, so CPU-bound phases read as 0 ms.
 * A render's metrics are always reported; `llm` once a chat measured it.
 */
export class Timing {
  readonly #started = Date.now()
  readonly #spent: Partial<Record<Metric, number>> = { redis: 0, tools: 0, render: 0 }
  #calls: readonly ToolCall[] = []

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

  /** Time measured elsewhere: the tool calls, overlapping the render, and the calls themselves. */
  addTools(busyMs: number, calls: readonly ToolCall[]): void {
    this.#spent.tools = (this.#spent.tools ?? 0) + busyMs
    this.#calls = calls
  }

  header(): string {
    this.#spent.total = Date.now() - this.#started
    return METRICS.flatMap((m) => {
      const ms = this.#spent[m]
      return ms === undefined ? [] : [`${m};dur=${ms}`]
    }).join(', ')
  }

  report(): TimingReport {
    const { total: _, ...phases } = this.#spent
    return {
      total_ms: Date.now() - this.#started,
      phases,
      calls: this.#calls.map((c) => ({
        tool: c.tool,
        start_ms: c.started - this.#started,
        ms: c.ms,
        outcome: c.outcome,
      })),
    }
  }
}

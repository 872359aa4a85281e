import type { Message } from '../lib/catalog'
import type { Rendered } from '../lib/render'

/** What `render` prints: the rendered prompt, or the error. */
export interface RenderResult {
  ok: boolean
  /** The rendered prompt (a `[role]` block per message), or `CODE: message`. */
  text: string
  warnings: string[]
  /** With --explain: what the service answered besides the prompt. */
  explained?: Explained | undefined
}

/** Where a render's time went (lib/render's Timing report). */
export type TimingReport = ReturnType<Rendered['timing']['report']>

/** The explanation of a render (`?explain=true`): the version served, the templates' analysis, the timing. */
export interface Explained {
  /** `version N`, `version N of label L`, `unversioned`, or where the prompt came from. */
  served: string
  analysis: { reads: string[]; tools: string[]; functions: string[] }
  timing: TimingReport
}

/** The result of a render that succeeded, in the form render prints it. */
export function renderedResult(
  prompt: string | Message[],
  warnings: readonly { code: string; message: string }[],
  explained?: Explained,
): RenderResult {
  return {
    ok: true,
    text: typeof prompt === 'string' ? prompt : prompt.map((m) => `[${m.role}]\n${m.content}`).join('\n\n'),
    warnings: warnings.map((w) => `${w.code}: ${w.message}`),
    explained,
  }
}

/** The lines --explain prints (on stderr, so that stdout stays the prompt alone). */
export function explainedLines({ served, analysis, timing }: Explained): string[] {
  const list = (items: readonly string[]) => (items.length === 0 ? '(none)' : items.join(', '))
  const phases = Object.entries(timing.phases).map(([phase, ms]) => `${phase} ${ms} ms`)
  return [
    `explain: ${served}`,
    `  reads: ${list(analysis.reads)}`,
    `  tools: ${list(analysis.tools)}`,
    `  functions: ${list(analysis.functions)}`,
    `  time: ${timing.total_ms} ms (${phases.join(', ')})`,
    ...timing.calls.map((c) => `    ${c.tool}: started at ${c.start_ms} ms, took ${c.ms} ms, ${c.outcome}`),
  ]
}

// The render's public shapes: what a caller gives a render (its options)
// and what it answers.
import type { Message, PromptRecord, Served } from '../catalog'
import type { JsonObject } from '../json'
import type { Analysis } from '../template'
import type { InvokeOptions } from '../tools'
import type { Seen } from './explain'
import type { Timing } from './timing'

/**
 * The render's deadline (RENDER_TIMEOUT_MS), how its tool calls are made
 * (the session's signal is the deadline), and the bytes of shared variables
 * it loads at most (ENVIRON_MAX_BYTES): a tool called on its own takes the
 * same (lib/tools' InvokeOptions).
 */
export interface RenderOptions extends InvokeOptions {
  /** Render exactly this version of the prompt's record; unset, the record as stored now. */
  version?: number | undefined
  /**
   * Applies a prompt's rollout (lib/rollout) when no `version` is asked:
   * where a sticky `header:<name>` is read. Unset, a rollout is not applied,
   * and the record as stored now renders.
   */
  rollout?: { header(name: string): string | undefined } | undefined
  /** What this render alone sees differently (a prompt test's case): never part of a kept plan. */
  overlay?: RenderOverlay | undefined
  /** A failure after the templates compiled carries what they read and call (`analysis`), as an explained answer does. */
  explain?: boolean | undefined
}

/** A prompt test's case's changes to the world its render sees (lib/prompt-tests). */
export interface RenderOverlay {
  /** Deep-merged over the shared variables loaded, before the missing-variable check. */
  variables?: JsonObject | undefined
  /** Answers by tool id: such a tool is not read nor called, its answer printed as a real one's would be. */
  tools?: ReadonlyMap<string, unknown> | undefined
}

/** Something that degraded the render without failing it. */
export interface Warning {
  code: string
  message: string
  [field: string]: unknown
}

export interface Rendered {
  /** A string for a `prompt`; the messages with their content rendered for `messages`. */
  prompt: string | Message[]
  warnings: Warning[]
  timing: Timing
  /** The version of the prompt's record rendered, and the label whose own record it was; none for a draft. */
  served: Served | undefined
  /** What its templates read and call, without running them. */
  analysis: Analysis
  /** The ids of the tools its templates call. */
  tools: string[]
  /** The prompt's record: what a chat reads of it besides the templates (`tools`, `returns`). */
  record: PromptRecord
  /** The shared variables as it saw them, for an explained answer (variablesSeen). */
  seen: Seen
}

// A render's plan (what it derives from the records it reads) and the plans
// an isolate keeps: one per store generation and prompt, while the store's
// answers they were built from hold, so that a render served from one reads,
// parses and looks up nothing again.
import { TREE_BYTES } from '../catalog'
import type { PromptRecord, Served, Skip, Tool } from '../catalog'
import { skip } from '../catalog/records'
import type { JsonObject } from '../json'
import { requestLog } from '../log'
import { Lru } from '../lru'
import type { Rollout } from '../rollout'
import { isGenerational, staleOf } from '../store'
import type { Generational, Store } from '../store'
import type { CompiledPrompt } from './compile'

/** What a render derives from the records it reads: kept while they hold (see keptPlan). */
export interface Plan {
  record: PromptRecord
  compiled: CompiledPrompt
  served: Served | undefined
  /** The tools its templates call. */
  called: Tool[]
  /** The shared variables its templates read; the tree below the root is shared and frozen. */
  vars: JsonObject
  /** Records skipped on the way: the variables' (also warnings of the answer), then the tools'. */
  skipped: Skip[]
  toolSkips: Skip[]
  /** Bytes of text its variables were built from: what keeping it holds. */
  bytes: number
  /** The values and listings the store answered to build it, for the log line of a render that keeps it. */
  answered: number
  /** The rollout of the layer serving the prompt, read with it; none for a version asked for. */
  rollout: Rollout | undefined
  /** When its variables' copy was read from Redis (Generational.treeReadAt); unset where no copy is kept. */
  varsReadAt: number | undefined
}

/**
 * Plans kept, one per store generation and prompt: a catalogue's worth, in
 * one isolate, weighed by the variables they hold, as the trees are.
 */
const plans = new Lru<string, KeptPlan>(200, TREE_BYTES)

/** A plan kept: until when, since when, and, when made of last good copies, when those were read. */
interface KeptPlan {
  plan: Plan
  until: number
  madeAt: number
  copiedAt: number | undefined
}

/**
 * The plan kept for this prompt, when the store's answers it was built from
 * still hold. Its request's log says what a fresh build would have: the
 * cache hits, and the records skipped on the way.
 */
export function keptPlan(store: Store, id: string): Plan | undefined {
  if (!isGenerational(store)) return undefined
  const kept = plans.get(`${store.generation}\n${id}`)
  const now = Date.now()
  // A plan made after now (a clock that went back) is not trusted, as a cache entry from the future is not.
  if (!kept || now >= kept.until || now < kept.madeAt) return undefined
  const { plan } = kept
  if (kept.copiedAt !== undefined) {
    // Made of last good copies while Redis failed: a render from it is as stale as they are, and only where those may.
    const stale = staleOf(store)
    const ageMs = now - kept.copiedAt
    if (!stale || ageMs > stale.options.maxAgeMs) return undefined
    stale.served(ageMs)
  }
  if (plan.answered > 0) {
    const record = requestLog()
    record?.count('cache', 'hits', plan.answered)
    record?.count('cache', 'joined', 0)
    record?.count('cache', 'misses', 0)
  }
  for (const s of [...plan.toolSkips, ...plan.skipped]) skip(s.key, s.reason)
  return plan
}

/**
 * Keeps `plan`, made of the answers of `store` at `generation`, until they no
 * longer hold; made of last good copies (Redis failing), with when those
 * were read.
 */
export function keepPlan(store: Store & Generational, generation: string, id: string, plan: Plan): void {
  const ageMs = staleOf(store)?.ageMs
  const copiedAt = ageMs === undefined ? undefined : Date.now() - ageMs
  const kept = { plan, until: store.answersHoldUntil(), madeAt: Date.now(), copiedAt }
  plans.set(`${generation}\n${id}`, kept, plan.bytes)
}

/**
 * The promote gate: a label is promoted only when the tests of every prompt
 * it affects (affected.ts) pass against the label's records, and what is
 * promoted is what was tested.
 */
import { ServiceError } from '../errors'
import { promote } from '../publish'
import type { Promotion } from '../publish'
import { LabeledStore } from '../store'
import type { Store } from '../store'
import { affectedBy, affectedPrompts } from './affected'
import { MAX_RUN_PROMPTS, reportFailed, runTests } from './run'
import type { TestContext, TestTarget } from './run'
import { testContext } from './context'
import type { RenderOptions } from '../render'
import type { Settings } from '../settings'
import type { TestReport } from './types'

export interface GateOptions {
  /** The target label; none for the base. */
  to?: string | undefined
  message?: string | undefined
  /** The publisher promoting, kept with each version written. */
  by?: string | undefined
  historyLimit: number
  /** Promote without running the tests; the versions' message says so (FORCED). */
  force: boolean
  /** How the tests render (and, where an LLM is configured, check answers): see testContext. */
  settings: Settings
  renderOptions: RenderOptions
}

export interface Gated {
  promotions: Promotion[]
  /** The tests run; undefined when forced. */
  report: TestReport | undefined
}

/** Appended to a forced promotion's message, in each version it writes. */
export const FORCED = 'tests skipped (force)'

/**
 * Promotes label `from` (see lib/publish/promote.ts) once the tests of the
 * prompts it affects pass. Any failure or error: 409 TESTS_FAILED carrying
 * the report, nothing written. The promotion then made is the one the dry
 * run planned: a write to the label or the target between the tests and
 * the promotion is 409 CONFLICT, never an untested promotion. The tests
 * read the label over the base, whatever the target.
 */
export async function gatedPromote(store: Store, from: string, options: GateOptions): Promise<Gated> {
  const { to, historyLimit, by } = options
  const message = options.message ?? `promoted from label ${from}`
  if (options.force) {
    const promotions = await promote(store, from, { to, historyLimit, by, message: `${message}; ${FORCED}` })
    return { promotions, report: undefined }
  }
  const planned = await promote(store, from, { to, historyLimit, dryRun: true })
  const { ids } = await affectedBy(store, from, planned)
  if (ids.length > MAX_RUN_PROMPTS) {
    throw new ServiceError(
      'LIMIT_EXCEEDED',
      `label '${from}' affects ${ids.length} prompts with tests, more than the ${MAX_RUN_PROMPTS} (MAX_RUN_PROMPTS) a run takes: ` +
        'test them in parts (POST /api/test with ids), then promote with force=true',
      { extra: { limit: 'MAX_RUN_PROMPTS' } },
    )
  }
  const report = await runTests(
    ids.map((id) => ({ id })),
    testContext(new LabeledStore(store, from), options.settings, options.renderOptions),
  )
  if (reportFailed(report)) {
    throw new ServiceError(
      'TESTS_FAILED',
      `label '${from}' was not promoted: ${report.failed} failed and ${report.errors} could not run of the ` +
        `${report.cases.length} tests of the prompts it affects; force=true promotes anyway`,
      { extra: { report } },
    )
  }
  const promotions = await promote(store, from, { to, historyLimit, by, message, expected: planned })
  return { promotions, report }
}

/**
 * What `POST /api/test` runs for `changed_by`: the prompts the gate would
 * test when promoting `label` (affectedPrompts), in the label's view of
 * `store`, read as the gate reads it (no cache).
 */
export async function labelChangesRun(
  store: Store,
  label: string,
  settings: Settings,
  renderOptions: RenderOptions,
): Promise<{ targets: TestTarget[]; context: TestContext }> {
  const { ids } = await affectedPrompts(store, label)
  const context = testContext(new LabeledStore(store, label), settings, renderOptions)
  return { targets: ids.map((id) => ({ id })), context }
}

/**
 * Prompt tests: the cases a prompt keeps in `tests`, run against its real
 * render (docs/prompt-tests.md). The routes, the CLI, the promote gate and
 * the playground all run them here and answer the one TestReport.
 */
export { MAX_RUN_PROMPTS, promptsWithTests, reportFailed, runTests } from './run'
export type { TestContext, TestTarget } from './run'
export { NO_MODEL } from './case'
export { checkedCases } from './cases'
export { checkText } from './text'
export { testContext } from './context'
export { affectedPrompts, promptsAffected } from './affected'
export type { ChangedRecord } from './affected'
export { gatedPromote, labelChangesRun } from './gate'
export type { GateOptions, Gated } from './gate'
export type * from './types'
export { CLIP_CHARS } from './types'

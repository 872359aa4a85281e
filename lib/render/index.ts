/**
 * The render pipeline: a prompt, the request's args and the shared variables
 * in; the rendered prompt out. See pipeline.ts (plans.ts: what a render
 * derives from the records, kept while they hold; types.ts: its options and
 * its answer).
 */
export { renderDraft, renderPrompt } from './pipeline'
export { compilePrompt } from './compile'
export { analysisReport, variablesSeen } from './explain'
export type { AnalysisReport, VariableSeen } from './explain'
export { writeSnapshots } from './snapshots'
export type { SnapshotRun } from './snapshots'
export type { Rendered, RenderOptions, RenderOverlay, Warning } from './types'
export type { Args } from './args'

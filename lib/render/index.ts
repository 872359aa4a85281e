/**
 * The render pipeline: a prompt, the request's args and the shared variables
 * in; the rendered prompt out. See pipeline.ts.
 */
export { renderDraft, renderPrompt } from './pipeline'
export { compilePrompt } from './compile'
export { analysisReport, variablesSeen } from './explain'
export type { AnalysisReport, VariableSeen } from './explain'
export { writeSnapshots } from './snapshots'
export type { SnapshotRun } from './snapshots'
export type { Rendered, RenderOptions, RenderOverlay, Warning } from './pipeline'
export type { Args } from './args'

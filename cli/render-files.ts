import type { Args, Rendered } from '../lib/render'
import { analysisReport, renderPrompt } from '../lib/render'
import { settingsFrom } from '../lib/settings'
import type { Settings } from '../lib/settings'
import type { Env } from '../lib/env'
import { EmbeddedStore } from '../lib/store'
import { describeFailure } from './io'
import type { Io } from './io'
import { renderedResult } from './rendered'
import type { RenderResult } from './rendered'
import { checkedRecords } from './validate'

/** The settings the CLI's own work reads: a render or test run from files, a direct promote's gate and history. */
const FILE_SETTINGS = [
  'RENDER_TIMEOUT_MS',
  'TOOL_TIMEOUT_MS',
  'TOOLS_BASE_URL',
  'TOOL_ALLOWED_HOSTS',
  'TOOL_MAX_CALLS',
  'TOOL_MAX_BYTES',
  'ENVIRON_MAX_BYTES',
  'TEST_MAX_CASES',
  'HISTORY_LIMIT',
] as const

/** The settings of the CLI's own work, taken from the CLI's environment as the Worker takes them from its own. */
export function fileSettings(io: Io): Settings {
  return settingsFrom(Object.fromEntries(FILE_SETTINGS.map((name) => [name, io.env[name]])) as Env)
}

/**
 * `render <id> --file ...`: renders prompt `id` with no server, by the
 * Worker's own pipeline (lib/render), over a store holding only the records
 * of the files given, read and checked as `publish` reads them: so what
 * renders here renders alike once those files are published. Tools are
 * called as the service calls them (a relative URL under TOOLS_BASE_URL, or
 * the TOOL_FAILED warning the service gives without one).
 */
export async function renderFiles(
  paths: readonly string[],
  id: string,
  args: unknown,
  explain: boolean,
  io: Io,
): Promise<RenderResult> {
  const records = await checkedRecords(paths, io)
  if (records === undefined)
    return { ok: false, text: 'render: the files have errors: nothing was rendered', warnings: [] }
  if (typeof args !== 'object' || args === null || Array.isArray(args)) {
    return { ok: false, text: 'render: --args must be a JSON object, each arg by its name', warnings: [] }
  }
  const store = new EmbeddedStore(records.map(({ key, value }) => [key, value] as const))
  let rendered: Rendered
  try {
    rendered = await renderPrompt(store, id, args as Args, fileSettings(io).render)
  } catch (e) {
    return { ok: false, text: describeFailure(e), warnings: [] }
  }
  const explained = {
    served: `from ${records.length === 1 ? '1 record file' : `${records.length} record files`}, with no server`,
    analysis: analysisReport(rendered.analysis, rendered.tools),
    timing: rendered.timing.report(),
  }
  return renderedResult(rendered.prompt, rendered.warnings, explain ? explained : undefined)
}

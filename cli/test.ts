import { appendFile } from 'node:fs/promises'
import { promptsWithTests, reportFailed, runTests } from '../lib/prompt-tests'
import type { TestReport } from '../lib/prompt-tests'
import { EmbeddedStore } from '../lib/store'
import { DONE, FAILED, describeFailure, misused } from './io'
import type { Io, Options } from './io'
import { checkLabels } from './labels'
import { ApiClient } from './remote'
import { fileSettings } from './render-files'
import { reportLines, reportMarkdown } from './test-report'
import { checkedRecords } from './validate'

/**
 * A run's answer may take this long: its cases run a few at a time, each
 * under the service's render deadline, and those with answer assertions
 * under its chat deadline.
 */
const RUN_TIMEOUT_MS = 300_000

/**
 * `test [ids...] [--label NAME] [--url URL] [--token TOKEN] [--json] [--summary FILE]`:
 * runs prompts' test cases through a running service (POST
 * /api/prompts/{id}/test for one id, else POST /api/test), or, with `--file`,
 * from record files with no server (render assertions only). Prints a line
 * per case and the counts, or with --json the report; exit 1 when any case
 * failed or could not run.
 */
export async function testCommand(operands: readonly string[], values: Options, io: Io): Promise<number> {
  const misuse = checkLabels('test', { label: values.label }, io)
  if (misuse !== undefined) return misuse
  const files = values.file
  if (files !== undefined) {
    const remote = (['url', 'token', 'label'] as const).find((name) => values[name] !== undefined)
    if (remote !== undefined) {
      return misused(io, 'test', `test: --file runs the tests from files, with no server: --${remote} is a server's`)
    }
  }
  let report: TestReport | undefined
  try {
    if (files !== undefined) report = await testFiles(files, operands, io)
    else {
      const base = values.url ?? io.env.AI_PROMPT_SHELL_URL ?? 'http://127.0.0.1:8787'
      const api = new ApiClient(base, values.token ?? (io.env.API_TOKEN || undefined))
      report = await testRemote(api, operands, values.label)
    }
  } catch (e) {
    io.err(`test: ${describeFailure(e)}`)
    return FAILED
  }
  if (report === undefined) return FAILED
  const title =
    files !== undefined
      ? `Prompt tests of ${files.join(', ')}`
      : `Prompt tests${values.label === undefined ? '' : ` of label ${values.label}`}`
  if (values.json) io.out(JSON.stringify(report, null, 2))
  else for (const line of reportLines(report)) io.out(line)
  if (values.summary !== undefined) {
    try {
      await appendFile(values.summary, reportMarkdown(report, title))
    } catch (e) {
      io.err(`test: cannot write the summary to ${values.summary}: ${describeFailure(e)}`)
      return FAILED
    }
  }
  return reportFailed(report) ? FAILED : DONE
}

/**
 * One prompt's cases through its own route (a missing prompt is NOT_FOUND),
 * else those of the prompts named, or of every prompt that has cases.
 * Without a label, what the deployment serves by default (as `render`).
 */
function testRemote(api: ApiClient, ids: readonly string[], label: string | undefined): Promise<TestReport> {
  const query = { label }
  const [only] = ids
  const run =
    ids.length === 1 && only !== undefined
      ? api.call<TestReport>('POST', `api/prompts/${encodeURIComponent(only)}/test`, query, {}, RUN_TIMEOUT_MS)
      : api.call<TestReport>('POST', 'api/test', query, ids.length > 0 ? { ids } : {}, RUN_TIMEOUT_MS)
  return run.then(({ data }) => data)
}

/**
 * The cases of the prompts in the files (those named, else every prompt
 * there that has cases), run by the service's own runner over a store of
 * only those records, as `render --file` renders: answer assertions are
 * skipped, since no model is asked. Undefined when the files have errors.
 */
async function testFiles(paths: readonly string[], ids: readonly string[], io: Io): Promise<TestReport | undefined> {
  const records = await checkedRecords(paths, io)
  if (records === undefined) {
    io.err('test: the files have errors: no test was run')
    return undefined
  }
  const store = new EmbeddedStore(records.map(({ key, value }) => [key, value] as const))
  const settings = fileSettings(io)
  const targets = (ids.length > 0 ? ids : await promptsWithTests(store)).map((id) => ({ id }))
  return runTests(targets, { store, renderOptions: settings.render, settings: settings.tests })
}

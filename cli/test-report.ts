import { ServiceError } from '../lib/errors'
import { reportFailed } from '../lib/prompt-tests'
import type { CaseReport, CaseResult, TestReport } from '../lib/prompt-tests'
import { RemoteError } from './remote'
import { plural } from './validate'

/**
 * How a prompt-test report (lib/prompt-tests) is printed: as lines for a
 * terminal (`test`, and `promote` when the gate refuses), and as Markdown for
 * a CI job's summary (`test --summary`). The texts in it come clipped from
 * the runner; here they are only quoted.
 */

/** One line per case (result, prompt, name, ms), each failure indented below it with expected and actual, then the counts. */
export function reportLines(report: TestReport): string[] {
  const width = Math.max(...RESULTS.map((r) => r.length))
  const lines: string[] = []
  for (const c of report.cases) {
    lines.push(`${c.result.padEnd(width)}  ${c.prompt}  ${JSON.stringify(c.name)}  ${c.ms} ms${why(c)}`)
    for (const { assert, expected, actual } of c.failures) {
      lines.push(`    ${assert}`, `      expected: ${quoted(expected)}`, `      actual:   ${quoted(actual)}`)
    }
  }
  lines.push(counts(report))
  return lines
}

/** `4 cases: 2 passed, 1 failed, 1 skipped, 0 errors`. */
export function counts({ cases, passed, failed, skipped, errors }: TestReport): string {
  return `${plural(cases.length, 'case')}: ${passed} passed, ${failed} failed, ${skipped} skipped, ${plural(errors, 'error')}`
}

/**
 * The report as Markdown: a heading with the counts, a table of the cases,
 * and each case that did not pass with its failures (or its error or reason).
 */
export function reportMarkdown(report: TestReport, title: string): string {
  const mark = reportFailed(report) ? '❌' : '✅'
  const lines = [`### ${mark} ${cell(title)}`, '', counts(report), '']
  if (report.cases.length > 0) {
    lines.push('| result | prompt | case | ms |', '| --- | --- | --- | ---: |')
    for (const c of report.cases)
      lines.push(`| ${ICON[c.result]} ${c.result} | ${code(c.prompt)} | ${cell(c.name)} | ${c.ms} |`)
    lines.push('')
  }
  for (const c of report.cases.filter((c) => c.result !== 'pass')) {
    lines.push(`**${c.result}** ${code(c.prompt)} ${cell(c.name)}${why(c)}`, '')
    for (const { assert, expected, actual } of c.failures) {
      lines.push(`- ${code(assert)}: expected ${code(quoted(expected))}, actual ${code(quoted(actual))}`)
    }
    if (c.failures.length > 0) lines.push('')
  }
  return `${lines.join('\n')}\n`
}

/**
 * The report of the tests that kept a label from being promoted (TESTS_FAILED's `report`: in a deployment's 409
 * body, or in the gate's own error when promoting in Redis directly), if `e` is that refusal.
 */
export function failedTests(e: unknown): TestReport | undefined {
  const refused =
    e instanceof RemoteError ? e.body : e instanceof ServiceError && e.code === 'TESTS_FAILED' ? e.extra : undefined
  if (refused === undefined || (e as { code?: unknown }).code !== 'TESTS_FAILED') return undefined
  const { report } = refused
  const cases = (report as { cases?: unknown } | null | undefined)?.cases
  return Array.isArray(cases) ? (report as TestReport) : undefined
}

const RESULTS: readonly CaseResult[] = ['pass', 'fail', 'skipped', 'error']

const ICON: Record<CaseResult, string> = { pass: '✅', fail: '❌', skipped: '⏭️', error: '⚠️' }

/** What kept a case from running, or why part of it was skipped. */
function why({ error, reason }: CaseReport): string {
  if (error !== undefined) return `: ${error.code}: ${error.message}`
  return reason === undefined ? '' : ` (${reason})`
}

/** A value of a failure on one line: strings quoted with their line breaks escaped, anything else as JSON. */
function quoted(value: unknown): string {
  return JSON.stringify(value) ?? String(value)
}

/** Text inside a table cell or a line of Markdown: on one line, its pipes escaped. */
function cell(text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|')
}

/** Inline code holding any text, on one line: fenced by one backtick more than its longest run of them. */
function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length))
  const fence = '`'.repeat(longest + 1)
  const padded = text.startsWith('`') || text.endsWith('`') ? ` ${text} ` : text
  return `${fence}${padded.replace(/\r?\n/g, ' ')}${fence}`
}

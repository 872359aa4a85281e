import { allPages, getServedPrompt, listPrompts, promptAt } from '../catalog'
import type { Prompt } from '../catalog'
import { ServiceError } from '../errors'
import type { RenderOptions } from '../render'
import type { TestSettings } from '../settings'
import type { Store } from '../store'
import { runCase } from './case'
import type { Subject } from './case'
import type { AnswerChecker, CaseReport, TestCase, TestReport } from './types'

/** Prompts one run tests at most: a run's size is known before any case runs. */
export const MAX_RUN_PROMPTS = 100

/**
 * Cases running at once: each may call tools and a model, and a Worker's
 * request holds at most 6 connections; more would only queue inside it.
 */
const CONCURRENT_CASES = 4

/** What to test: a prompt, maybe at a version, maybe a draft of it, with its own cases or these, all or some. */
export interface TestTarget {
  id: string
  /** Test this version of the stored record (not with `draft`). */
  version?: number | undefined
  /** Test this text instead of the stored one. */
  draft?: Prompt | undefined
  /** Run these cases instead of the prompt's own. */
  tests?: TestCase[] | undefined
  /** Only the cases of these names. */
  names?: string[] | undefined
}

export interface TestContext {
  store: Store
  renderOptions: RenderOptions
  settings: TestSettings
  /** Checks answer assertions; none, such cases are reported skipped (no model). */
  answers?: AnswerChecker | undefined
}

/**
 * Runs the cases of each target and reports them in the targets' and cases'
 * order, running a few at once. Bounded before any runs: at most
 * MAX_RUN_PROMPTS prompts, TEST_MAX_CASES cases each (LIMIT_EXCEEDED naming
 * the bound); a prompt that does not exist is NOT_FOUND, a name that no case
 * has BAD_REQUEST. A case's own trouble is its report's, never the run's.
 */
export async function runTests(targets: readonly TestTarget[], context: TestContext): Promise<TestReport> {
  if (targets.length > MAX_RUN_PROMPTS)
    throw new ServiceError(
      'LIMIT_EXCEEDED',
      `a test run takes at most ${MAX_RUN_PROMPTS} prompts (MAX_RUN_PROMPTS), not ${targets.length}`,
    )
  const jobs: { subject: Subject; testCase: TestCase }[] = []
  for (const target of targets) {
    const subject = await subjectOf(context.store, target)
    for (const testCase of casesOf(subject, target, context.settings)) jobs.push({ subject, testCase })
  }
  const cases: CaseReport[] = new Array(jobs.length)
  const caseContext = { store: context.store, renderOptions: context.renderOptions, answers: context.answers }
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      const at = next++
      const { subject, testCase } = jobs[at] as (typeof jobs)[number]
      cases[at] = await runCase(subject, testCase, caseContext)
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_CASES, jobs.length) }, worker))
  return tally(cases)
}

/** A run failed when one of its cases failed or could not run. */
export function reportFailed(report: TestReport): boolean {
  return report.failed + report.errors > 0
}

/**
 * The ids of the prompts the store (the base, or a label's view) holds that
 * keep cases: what `POST /api/test` runs when given no ids. Over
 * MAX_RUN_PROMPTS, LIMIT_EXCEEDED naming it.
 */
export async function promptsWithTests(store: Store): Promise<string[]> {
  const { items } = await allPages((request) => listPrompts(store, request))
  const ids = items.filter((p) => Array.isArray(p.record.tests) && p.record.tests.length > 0).map((p) => p.id)
  if (ids.length > MAX_RUN_PROMPTS)
    throw new ServiceError(
      'LIMIT_EXCEEDED',
      `${ids.length} prompts have tests, more than the ${MAX_RUN_PROMPTS} (MAX_RUN_PROMPTS) a run takes: name the prompts in \`ids\``,
    )
  return ids
}

async function subjectOf(store: Store, target: TestTarget): Promise<Subject> {
  const { id, version, draft } = target
  if (draft) return { id, prompt: draft, version: undefined, draft: true }
  const { prompt } = await (version === undefined ? getServedPrompt(store, id) : promptAt(store, id, version))
  return { id, prompt, version, draft: false }
}

/** The cases to run of a target, checked against TEST_MAX_CASES and its names. */
function casesOf(subject: Subject, target: TestTarget, settings: TestSettings): TestCase[] {
  const all = target.tests ?? ((subject.prompt.record.tests ?? []) as TestCase[])
  if (all.length > settings.maxCases)
    throw new ServiceError(
      'LIMIT_EXCEEDED',
      `prompt '${subject.id}' has ${all.length} test cases, more than TEST_MAX_CASES (${settings.maxCases})`,
    )
  if (target.names === undefined) return all
  const unknown = target.names.filter((name) => !all.some((c) => c.name === name))
  if (unknown.length > 0)
    throw new ServiceError(
      'BAD_REQUEST',
      `prompt '${subject.id}' has no test case named ${unknown.map((n) => JSON.stringify(n)).join(', ')}`,
    )
  return all.filter((c) => target.names?.includes(c.name))
}

function tally(cases: CaseReport[]): TestReport {
  const count = (result: CaseReport['result']) => cases.filter((c) => c.result === result).length
  return { passed: count('pass'), failed: count('fail'), skipped: count('skipped'), errors: count('error'), cases }
}

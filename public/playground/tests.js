// The selected prompt's tests: its cases (GET /api/prompts/{id} answers
// `tests`), run one or all through POST /api/prompts/{id}/test against the
// draft being edited (sent with the stored cases) or the stored text, each
// shown with its result: a fail with each assertion's expected and actual, a
// skip or an error with its reason. The args can be saved as a new case: the
// record, read as stored, written back with it (records.js); into the base
// only once confirmed in the page (confirm.js).
import { api, readJson } from './api.js'
import { confirmation } from './confirm.js'
import { $, errorView, fill, h } from './dom.js'
import { page } from './page.js'
import { adminToken, adminTokenInput, writePrompt } from './records.js'
/** A case's name at most, as the schema bounds it. */
const MAX_NAME_CHARS = 100

/** The tests panel (its markup in index.html), for the prompt the page selects. */
export function testsPanel() {
  const current = () => page.prompt
  /** The latest report's case of each name, and what it ran against: earlier runs' answers are dropped. */
  let results = new Map()
  let runs = 0

  function show() {
    const prompt = current()
    const cases = prompt?.tests ?? []
    $('run-tests').disabled = cases.length === 0
    $('tests-note').textContent =
      cases.length === 0 ? 'No cases yet: save the args as one below.' : `${cases.length} case(s).`
    fill(
      $('test-cases'),
      cases.map((c) =>
        h(
          'li',
          { 'data-testid': 'test-case', 'data-name': c.name },
          h('strong', {}, c.name),
          ' ',
          h('button', { type: 'button', onclick: () => run([c.name]) }, 'Run'),
          results.has(c.name) ? caseView(results.get(c.name)) : null,
        ),
      ),
    )
  }

  /**
   * Runs the cases named (all when undefined) against the draft when the
   * template is edited, else the stored text of the version shown (shared
   * variable overrides alone are not part of a test run).
   */
  async function run(names) {
    const prompt = current()
    if (!prompt) return
    const number = ++runs
    const edited = page.edited() ? page.draft() : null
    if (edited?.error) return fill($('tests-state'), errorView({ code: 'NOT_SENT', message: edited.error }))
    const body = {}
    if (edited) {
      body.draft = edited
      body.tests = prompt.tests ?? []
    }
    if (names) body.names = names
    const against = edited ? 'draft' : 'stored'
    $('tests-state').textContent = `running against the ${against} template…`
    let res, answer
    try {
      const version = page.view.version === null ? '' : `?version=${page.view.version}`
      res = await api(`/api/prompts/${encodeURIComponent(prompt.id)}/test${version}`, { method: 'POST', body })
      answer = await readJson(res)
    } catch (e) {
      answer = { code: 'NETWORK', message: e.message }
    }
    if (number !== runs || current() !== prompt) return
    if (!res?.ok || answer.status !== 'success') return fill($('tests-state'), errorView(answer))
    const report = answer.data
    for (const c of report.cases) results.set(c.name, { ...c, against })
    $('tests-state').textContent =
      `${report.cases.length} run against the ${against} template: ${report.passed} passed, ` +
      `${report.failed} failed, ${report.skipped} skipped, ${report.errors} errors`
    show()
  }

  async function save(event) {
    event.preventDefault()
    const prompt = current()
    const note = $('save-note')
    if (!prompt) return
    const { args, error } = page.args()
    if (error) return (note.textContent = `Fix the args JSON first: ${error}`)
    const name = $('case-name').value.trim()
    if (!name || name.length > MAX_NAME_CHARS)
      return (note.textContent = `A case needs a name of 1 to ${MAX_NAME_CHARS} characters.`)
    if ((prompt.tests ?? []).some((c) => c.name === name))
      return (note.textContent = `A case is named "${name}" already.`)
    const token = adminToken($('admin-token'))
    if (!token) return (note.textContent = 'Saving writes the record: give the admin token (ADMIN_TOKEN).')
    const write = async () => {
      note.textContent = 'saving…'
      try {
        await saveCase(prompt, { name, args }, token)
      } catch (e) {
        fill(note, errorView({ code: 'NETWORK', message: e.message }))
      }
    }
    // A case is written into the record every caller is served: in the base, only once confirmed.
    if (page.view.label === null) {
      note.textContent = ''
      return toBase.ask(write)
    }
    await write()
  }

  /** Writes the record with `testCase` added, then shows the cases as now stored (the template being edited is kept). */
  async function saveCase(prompt, testCase, token) {
    const note = $('save-note')
    const append = (entry) => ({ ...entry, tests: [...(entry.tests ?? []), testCase] })
    const message = `playground: test case "${testCase.name}" added`
    const written = await writePrompt(prompt, append, { token, message })
    if (written.error) return fill(note, errorView(written.error))
    note.textContent = `Saved "${testCase.name}" as version ${written.version} of ${written.where}.`
    $('case-name').value = ''
    const reread = await api(`/api/prompts/${encodeURIComponent(prompt.id)}`)
    const body = await readJson(reread)
    if (reread.ok && current() === prompt) {
      prompt.tests = body.data.tests
      show()
    }
  }

  const toBase = confirmation(
    'Save the case to the base?',
    'The prompt is written as a new version, served to every caller without a label.',
    $('save-case').querySelector('button[type=submit]'),
  )
  $('save-case').append(toBase.element)
  $('run-tests').addEventListener('click', () => run(undefined))
  $('save-case').addEventListener('submit', save)
  adminTokenInput($('admin-token'))
  // A newly selected prompt: its cases, no results yet.
  page.on('select', () => {
    results = new Map()
    runs++
    $('tests-state').textContent = ''
    $('save-note').textContent = ''
    toBase.hide()
    show()
  })
}

/** One case's result: how long it took, what it ran against, and why it did not pass. */
function caseView(report) {
  return h(
    'div',
    { className: 'case-result' },
    h('span', { className: `result ${report.result}`, 'data-testid': 'test-result' }, report.result),
    h('small', {}, ` ${Math.round(report.ms)} ms, ${report.against} template`),
    report.reason ? h('p', { className: 'note' }, report.reason) : null,
    report.error ? errorView(report.error) : null,
    report.failures.length === 0
      ? null
      : h(
          'ul',
          { className: 'failures' },
          report.failures.map((f) =>
            h(
              'li',
              { 'data-testid': 'test-failure' },
              h('code', {}, f.assert),
              h('div', {}, 'expected ', h('pre', { className: 'expected' }, asText(f.expected))),
              h('div', {}, 'actual ', h('pre', { className: 'actual' }, asText(f.actual))),
            ),
          ),
        ),
  )
}

const asText = (value) => (typeof value === 'string' ? value : JSON.stringify(value))

// The playground's shell: pick a prompt, edit its args and its template, see
// it rendered as you type (a draft goes to POST /api/render, storing
// nothing), with its warnings, what it reads and calls, and how long its tool
// calls took. The panels (editor, variables, versions, tests, chat) share
// what is selected through page.js.
import { api, readJson } from './api.js'
import { chatPanel } from './chat.js'
import { $, errorView, fill, h, renderedView } from './dom.js'
import { discardDraft, keepDraft, keptDraft } from './drafts.js'
import { promptEditor } from './editor.js'
import { page } from './page.js'
import { shortcuts } from './shortcuts.js'
import { exampleArgs, schemaForm } from './schema-form.js'
import { testsPanel } from './tests.js'
import { variablesPanel } from './variables.js'
import { versionsPanel } from './versions.js'
import { timingView } from './waterfall.js'

const DEBOUNCE_MS = 300
const state = {
  prompts: [],
  form: null,
  selecting: 0,
  /** The number of the latest render asked for: answers to earlier ones are dropped. */
  renders: 0,
  renderAbort: null,
  timer: 0,
}
const editor = promptEditor($('template-host'), {
  onInput: () => {
    keepEdit()
    $('draft-note').textContent = ''
    showDraft()
    page.emit('edit')
  },
})
const argsEditor = $('args-editor')

// ---- the prompt list

/** `/playground?limit=20`: the prompt list is read in pages of that many (the API's default when unset). */
const PAGE_LIMIT = new URLSearchParams(location.search).get('limit')
/** Pages of prompts the list reads at most. */
const MAX_PAGES = 1000
/** Prompts the list shows at most: past that, the filter narrows it (building thousands of rows a keystroke is slow). */
const MAX_SHOWN = 500

/** Every prompt, page after page, following each page's next_cursor. */
async function loadPrompts() {
  const prompts = []
  let cursor = null
  for (let pages = 0; pages < MAX_PAGES; pages++) {
    const query = new URLSearchParams()
    if (PAGE_LIMIT) query.set('limit', PAGE_LIMIT)
    if (cursor) query.set('cursor', cursor)
    const res = await api(`/api/prompts${query.size > 0 ? `?${query}` : ''}`)
    const body = await readJson(res)
    if (!res.ok) return fill($('list-note'), errorView(body))
    prompts.push(...body.data)
    cursor = body.next_cursor
    if (!cursor) break
  }
  // The API pages in key order (extensions' prompts, then the direct ones): a picker reads best by id.
  state.prompts = prompts.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  const supports = [...new Set(state.prompts.flatMap((p) => p.supports ?? []))].sort()
  fill(
    $('supports'),
    h('option', { value: '' }, 'any support'),
    supports.map((s) => h('option', { value: s }, s)),
  )
  showList()
  const wanted = decodeURIComponent(location.hash.slice(1))
  if (wanted && state.prompts.some((p) => p.id === wanted)) selectPrompt(wanted)
}

function showList() {
  const text = $('filter').value.trim().toLowerCase()
  const support = $('supports').value
  const shown = state.prompts.filter(
    (p) =>
      (!text || `${p.id} ${p.description ?? ''}`.toLowerCase().includes(text)) &&
      (!support || (p.supports ?? []).includes(support)),
  )
  fill(
    $('prompt-list'),
    shown.slice(0, MAX_SHOWN).map((p) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'prompt-item',
            'data-id': p.id,
            'aria-current': p.id === page.prompt?.id ? 'true' : null,
            title: p.description ?? '',
            onclick: () => selectPrompt(p.id),
          },
          h('strong', { className: 'id', title: p.id }, p.id),
          h('small', {}, `${p.kind} · ${(p.supports ?? []).join(', ') || 'no supports'}`),
        ),
      ),
    ),
  )
  $('list-note').textContent =
    shown.length === 0
      ? 'No prompt matches.'
      : shown.length > MAX_SHOWN
        ? `${shown.length - MAX_SHOWN} more — refine the filter.`
        : ''
}

// ---- the selected prompt

/** Selects the prompt `id` in the label the page shows, at its served version. */
function selectPrompt(id) {
  return loadPrompt(id, { label: page.view.label, version: null })
}

/**
 * Reads the prompt `id` at `view` ({label, version}) and shows it; page.view
 * becomes `view` only once it is read, so a record that fails to load leaves
 * the page on the one it showed. Answers null, or the error body. `discard`:
 * the draft of the record shown is dropped rather than kept (it was saved).
 */
async function loadPrompt(id, view, { discard = false } = {}) {
  const selecting = ++state.selecting
  const query = view.version === null ? '' : `?version=${view.version}`
  let res, body
  try {
    res = await api(`/api/prompts/${encodeURIComponent(id)}${query}`, { label: view.label })
    body = await readJson(res)
  } catch (e) {
    body = { status: 'error', code: 'NETWORK', message: e.message }
  }
  // A later load answers for the page.
  if (selecting !== state.selecting) return null
  if (!res?.ok) {
    showError(body)
    return body
  }
  if (discard) discardDraft(draftKey())
  else keepEdit()
  const prompt = body.data
  page.prompt = prompt
  page.view = { label: view.label, version: view.version }
  showUrl()
  showService()
  const draft = keptDraft(draftKey())
  editor.load(prompt, draft)
  $('draft-note').textContent = draft ? 'Draft restored: your edit of this version, kept in this tab.' : ''
  $('empty').hidden = true
  $('prompt').hidden = false
  $('prompt-id').textContent = prompt.id
  $('prompt-id').title = prompt.id
  $('prompt-description').textContent = prompt.description ?? ''
  showRollout(prompt.rollout)
  const example = exampleArgs(prompt)
  const kept = keptArgs()
  argsEditor.value = kept ?? JSON.stringify(example.args, null, 2)
  $('args-note').textContent = kept !== null ? 'Your args for this prompt, kept in this tab.' : argsSource(example)
  state.form = schemaForm(prompt.parameters, editArgs, example.examples)
  fill($('params-form'), state.form.elements)
  state.form.show(parsedArgs().args ?? {})
  showAnalysis(null)
  showDraft()
  showList()
  page.emit('select', prompt)
  render()
  return null
}

/** The URL names the view's label and the prompt: a reload opens the same. */
function showUrl() {
  const query = new URLSearchParams(location.search)
  if (page.view.label === null) query.delete('label')
  else query.set('label', page.view.label)
  const search = query.size > 0 ? `?${query}` : ''
  history.replaceState(null, '', `${location.pathname}${search}#${encodeURIComponent(page.prompt.id)}`)
}

// ---- drafts kept per prompt, label and version in this tab (drafts.js)

const draftKey = () => page.prompt && JSON.stringify([page.prompt.id, page.view.label ?? '', page.view.version ?? ''])

/** The edit of the record shown kept (or dropped when it is as stored again). */
function keepEdit() {
  if (!page.prompt) return
  if (editor.edited()) keepDraft(draftKey(), editor.fields())
  else discardDraft(draftKey())
}

/** Where the args shown on open came from. */
function argsSource({ from }) {
  if (from === 'defaults') return "Args from the parameters' defaults."
  if (from === 'placeholders') return 'Example values for the required parameters: replace them with real ones.'
  return `Args of the ${from}.`
}

// ---- args kept per prompt in this tab (the same args fit every label and version of it)

const ARGS_KEY = 'ai-prompt-shell.args:'
/** Args longer than this are not kept (sessionStorage is small and shared by the tab). */
const MAX_KEPT_CHARS = 64 * 1024

const argsKey = () => `${ARGS_KEY}${page.prompt.id}`

/** The args text typed for the selected prompt earlier in this tab, or null. */
function keptArgs() {
  return sessionStorage.getItem(argsKey())
}

function keepArgs() {
  if (!page.prompt || argsEditor.value.length > MAX_KEPT_CHARS) return
  try {
    sessionStorage.setItem(argsKey(), argsEditor.value)
  } catch {
    // Storage full or off: the args are just not kept.
  }
}

/** The rollout serving the prompt, read-only: its versions and weights, and what keeps a caller on one. */
function showRollout(rollout) {
  $('rollout').hidden = !rollout
  if (!rollout) return
  const shares = rollout.versions.map(({ version, weight }) => `version ${version} ${weight}%`).join(', ')
  const sticky = rollout.sticky ? `sticky by ${rollout.sticky}` : 'a version per request, at random'
  const whose = rollout.label ? ` (label ${rollout.label})` : ''
  $('rollout').textContent = `Rollout${whose}: ${shares}; ${sticky}. A render serves one of them.`
}

const isDraft = () => page.prompt !== null && editor.edited()
const overridden = () => Object.keys(page.overrides).length > 0

function showDraft() {
  $('draft-badge').hidden = $('reset-template').hidden = !isDraft()
}

/** The record fields a draft of the selected prompt keeps from the stored one. */
const KEPT = ['parameters', 'tools', 'returns']

/** See page.draft: the edited template with the stored record's other fields, null when nothing differs. */
function draftRecord() {
  const prompt = page.prompt
  if (!prompt || (!isDraft() && !overridden())) return null
  const fields = editor.fields()
  if (fields.error) return fields
  const kept = Object.fromEntries(KEPT.filter((k) => prompt[k] != null).map((k) => [k, prompt[k]]))
  return { ...kept, ...fields }
}

/** The args in the JSON editor, or why they are not usable. */
function parsedArgs() {
  let args
  try {
    args = JSON.parse(argsEditor.value.trim() || '{}')
  } catch (e) {
    return { error: `the args are not JSON: ${e.message}` }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args))
    return { error: 'the args must be a JSON object' }
  return { args }
}

/** A change made in the form, written into the JSON editor. */
function editArgs(change) {
  const { args, error } = parsedArgs()
  if (error) return ($('args-note').textContent = `Fix the args JSON first: ${error}`)
  change(args)
  argsEditor.value = JSON.stringify(args, null, 2)
  // The same values back into the form: only its "example" badges change.
  state.form.show(args)
  $('args-note').textContent = ''
  keepArgs()
  page.emit('edit')
  scheduleRender()
}

// ---- rendering

function scheduleRender() {
  clearTimeout(state.timer)
  state.timer = setTimeout(render, DEBOUNCE_MS)
}

async function render() {
  clearTimeout(state.timer)
  const prompt = page.prompt
  if (!prompt) return
  const number = ++state.renders
  state.renderAbort?.abort()
  const abort = (state.renderAbort = new AbortController())
  const { args, error } = parsedArgs()
  if (error) return showError({ code: 'NOT_SENT', message: error })
  const version = page.view.version === null ? '' : `&version=${page.view.version}`
  let path = `/api/prompts/${encodeURIComponent(prompt.id)}/render?explain=true${version}`
  let body = { args }
  const draft = draftRecord()
  if (draft?.error) return showError({ code: 'NOT_SENT', message: draft.error })
  if (draft) {
    path = '/api/render'
    body = { ...draft, args, ...(overridden() ? { variables: page.overrides } : {}) }
  }
  $('render-state').textContent = 'rendering…'
  let res, answer
  try {
    res = await api(path, { method: 'POST', body, signal: abort.signal })
    answer = await readJson(res)
  } catch (e) {
    if (abort.signal.aborted) return
    answer = { status: 'error', code: 'NETWORK', message: e.message }
  }
  if (number !== state.renders) return
  $('render-state').textContent = isDraft() ? '(draft)' : ''
  page.emit('rendered', answer)
  editor.markError(answer.status === 'success' ? null : answer)
  showAnalysis(answer.analysis ?? null, 'unknown')
  if (!res?.ok || answer.status !== 'success') return showError(answer)
  fill($('render-output'), renderedView(answer.rendered_prompt))
  const warnings = answer.warnings ?? []
  fill($('warnings'), warnings.length === 0 ? h('li', { className: 'note' }, 'none') : warnings.map(warningView))
  fill($('timing'), timingView(answer.timing))
}

/** A warning: its code, what it names (tool, key, ...), its message. */
function warningView({ code, message, ...named }) {
  const names = Object.entries(named).map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
  return h('li', {}, h('code', {}, code), names.length ? ` (${names.join(', ')})` : '', ' ', message)
}

function showError(error) {
  $('render-state').textContent = ''
  fill($('render-output'), errorView(error))
  fill($('warnings'))
  fill($('timing'))
}

/** What the template reads and calls (a render's, failed or not, when it compiled); null: unknown yet. */
function showAnalysis(analysis, unknown = '…') {
  const chips = (names) =>
    names.length === 0
      ? h('span', { className: 'note' }, 'none')
      : names.map((n) => h('code', { className: 'chip id', title: n }, n))
  if (!analysis) {
    for (const id of ['reads', 'arg-reads', 'tools']) fill($(id), h('span', { className: 'note' }, unknown))
    return
  }
  const reads = analysis.reads ?? []
  fill($('reads'), chips(reads.filter((r) => !r.startsWith('args.') && r !== 'args')))
  fill($('arg-reads'), chips(reads.filter((r) => r.startsWith('args.'))))
  fill($('tools'), chips(analysis.tools ?? []))
}

// ---- the service

/** /health's data, once read. */
let health = null

async function loadHealth() {
  const res = await fetch('/health')
  const body = await readJson(res)
  health = res.ok ? (body.data ?? {}) : null
  showService()
  chatPanel($('chat'), { llm: body.data?.llm === true })
}

/** The service, its store, and the label the page shows now. */
function showService() {
  if (!health) return
  const labelled = page.view.label === null ? '' : ` · label: ${page.view.label}`
  $('service').textContent = `${health.service} ${health.version} · store: ${health.store}${labelled}`
}

// ---- wiring

$('filter').addEventListener('input', showList)
$('supports').addEventListener('change', showList)
argsEditor.addEventListener('input', () => {
  const { args, error } = parsedArgs()
  $('args-note').textContent = error ?? ''
  if (args) state.form?.show(args)
  keepArgs()
  page.emit('edit')
})
$('render-button').addEventListener('click', render)
$('reset-template').addEventListener('click', () => {
  editor.reset()
  discardDraft(draftKey())
  $('draft-note').textContent = ''
  showDraft()
  page.emit('edit')
  render()
})
page.on('edit', scheduleRender)
Object.assign(page, {
  args: parsedArgs,
  draft: draftRecord,
  edited: isDraft,
  render,
  reload: (view = page.view, options) => (page.prompt ? loadPrompt(page.prompt.id, view, options) : null),
})
shortcuts(selectPrompt)
testsPanel()
variablesPanel($('variables'))
versionsPanel($('versions'))
loadHealth()
loadPrompts()

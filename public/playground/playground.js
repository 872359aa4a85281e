// The playground: pick a prompt, edit its args and its template, see it
// rendered as you type (a draft goes to POST /api/render, storing nothing),
// with its warnings, what it reads and calls, and how long its tool calls took;
// run its tests (tests.js); chat with the stored prompt when an LLM is configured.
import { api, label, readJson } from './api.js'
import { $, errorView, fill, h } from './dom.js'
import { defaultArgs, schemaForm } from './schema-form.js'
import { testsPanel } from './tests.js'

const DEBOUNCE_MS = 300
const state = {
  prompts: [],
  /** The selected prompt as GET /api/prompts/{id} answers it. */
  current: null,
  /** Its template as the editor shows it when unedited. */
  stored: '',
  form: null,
  selecting: 0,
  /** The number of the latest render asked for: answers to earlier ones are dropped. */
  renders: 0,
  renderAbort: null,
  timer: 0,
  chatAbort: null,
}
const templateEditor = $('template-editor')
const argsEditor = $('args-editor')

// ---- the prompt list

/** `/playground?limit=20`: the prompt list is read in pages of that many (the API's default when unset). */
const PAGE_LIMIT = new URLSearchParams(location.search).get('limit')
/** Pages of prompts the list reads at most. */
const MAX_PAGES = 1000

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
    shown.map((p) =>
      h(
        'li',
        {},
        h(
          'button',
          {
            type: 'button',
            'data-testid': 'prompt-item',
            'data-id': p.id,
            'aria-current': p.id === state.current?.id ? 'true' : null,
            title: p.description ?? '',
            onclick: () => selectPrompt(p.id),
          },
          h('strong', {}, p.id),
          h('small', {}, `${p.kind} · ${(p.supports ?? []).join(', ') || 'no supports'}`),
        ),
      ),
    ),
  )
  $('list-note').textContent = shown.length === 0 ? 'No prompt matches.' : ''
}

// ---- the selected prompt

async function selectPrompt(id) {
  const selecting = ++state.selecting
  const res = await api(`/api/prompts/${encodeURIComponent(id)}`)
  const body = await readJson(res)
  if (selecting !== state.selecting) return
  if (!res.ok) return showError(body)
  const prompt = body.data
  state.current = prompt
  history.replaceState(null, '', `#${encodeURIComponent(id)}`)
  state.stored = prompt.kind === 'messages' ? JSON.stringify(prompt.messages, null, 2) : prompt.prompt
  templateEditor.value = state.stored
  $('empty').hidden = true
  $('prompt').hidden = false
  $('prompt-id').textContent = prompt.id
  $('prompt-description').textContent = prompt.description ?? ''
  showRollout(prompt.rollout)
  const args = defaultArgs(prompt.parameters)
  argsEditor.value = JSON.stringify(args, null, 2)
  state.form = schemaForm(prompt.parameters, editArgs)
  fill($('params-form'), state.form.elements)
  state.form.show(args)
  fill($('reads'))
  fill($('arg-reads'))
  fill($('tools'))
  showDraft()
  showList()
  tests.select()
  render()
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

const isDraft = () => state.current !== null && templateEditor.value !== state.stored

function showDraft() {
  $('draft-badge').hidden = $('reset-template').hidden = !isDraft()
}

/** The edited template as a draft's record (its parameters the stored ones'), null when unedited, or why it is not usable. */
function draftRecord() {
  const prompt = state.current
  if (!isDraft()) return null
  if (prompt.kind !== 'messages') return { prompt: templateEditor.value, parameters: prompt.parameters }
  try {
    return { messages: JSON.parse(templateEditor.value), parameters: prompt.parameters }
  } catch (e) {
    return { error: `the messages are not JSON: ${e.message}` }
  }
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
  $('args-note').textContent = ''
  scheduleRender()
}

// ---- rendering

function scheduleRender() {
  clearTimeout(state.timer)
  state.timer = setTimeout(render, DEBOUNCE_MS)
}

async function render() {
  clearTimeout(state.timer)
  const prompt = state.current
  if (!prompt) return
  const number = ++state.renders
  state.renderAbort?.abort()
  const abort = (state.renderAbort = new AbortController())
  const { args, error } = parsedArgs()
  if (error) return showError({ code: 'NOT_SENT', message: error })
  let path = `/api/prompts/${encodeURIComponent(prompt.id)}/render?explain=true`
  let body = { args }
  const draft = draftRecord()
  if (draft?.error) return showError({ code: 'NOT_SENT', message: draft.error })
  if (draft) {
    path = '/api/render'
    body = { ...draft, args }
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
  if (!res?.ok || answer.status !== 'success') return showError(answer)
  fill($('render-output'), renderedView(answer.rendered_prompt))
  const warnings = answer.warnings ?? []
  fill($('warnings'), warnings.length === 0 ? h('li', { className: 'note' }, 'none') : warnings.map(warningView))
  showAnalysis(answer.analysis)
  showTiming(answer.timing)
}

function renderedView(rendered) {
  if (typeof rendered === 'string') return h('pre', { className: 'text' }, rendered)
  return (rendered ?? []).map((m) =>
    h(
      'div',
      { className: 'message' },
      h('div', { className: 'role' }, m.role),
      h('pre', { className: 'text' }, typeof m.content === 'string' ? m.content : JSON.stringify(m.content, null, 2)),
    ),
  )
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

function showAnalysis(analysis) {
  const chips = (names) =>
    names.length === 0
      ? h('span', { className: 'note' }, 'none')
      : names.map((n) => h('code', { className: 'chip' }, n))
  if (!analysis) return
  const reads = analysis.reads ?? []
  fill($('reads'), chips(reads.filter((r) => !r.startsWith('args.') && r !== 'args')))
  fill($('arg-reads'), chips(reads.filter((r) => r.startsWith('args.'))))
  fill($('tools'), chips(analysis.tools ?? []))
}

const ms = (n) => `${Math.round(n * 10) / 10} ms`

function showTiming(timing) {
  if (!timing) return fill($('timing'), h('p', { className: 'note' }, 'The answer has no timing.'))
  const phases = Object.entries(timing.phases ?? {}).map(([name, value]) => `${name} ${ms(value)}`)
  const calls = timing.calls ?? []
  const span = Math.max(timing.total_ms ?? 0, ...calls.map((c) => c.start_ms + c.ms), 1)
  const pct = (n) => `${Math.min(100, (n / span) * 100)}%`
  fill(
    $('timing'),
    h('p', {}, `total ${ms(timing.total_ms ?? 0)}`, phases.length ? ` · ${phases.join(' · ')}` : ''),
    calls.length === 0
      ? h('p', { className: 'note' }, 'No tool calls.')
      : h(
          'ol',
          { className: 'waterfall' },
          calls.map((c) =>
            h(
              'li',
              { className: `call ${c.outcome}` },
              h('span', { className: 'tool', title: c.tool }, c.tool),
              h(
                'span',
                { className: 'track' },
                h('span', { className: 'bar', style: `left:${pct(c.start_ms)};width:max(2px,${pct(c.ms)})` }),
              ),
              h('span', { className: 'took' }, `${c.outcome} ${ms(c.ms)}`),
            ),
          ),
        ),
  )
}

// ---- chat

async function loadHealth() {
  const res = await fetch('/health')
  const body = await readJson(res)
  const data = body.data ?? {}
  const labelled = label === null ? '' : ` · label: ${label}`
  $('service').textContent = res.ok ? `${data.service} ${data.version} · store: ${data.store}${labelled}` : ''
  const llm = data.llm === true
  $('chat-form').hidden = !llm
  $('chat-note').textContent = llm
    ? 'Sends the stored prompt (not a draft) with these args; the answer streams in.'
    : 'No LLM is configured (LLM_BASE_URL or LLM_ROUTES): chat is off.'
}

async function chat(event) {
  event.preventDefault()
  const prompt = state.current
  const output = $('chat-output')
  if (!prompt) return (output.textContent = 'Select a prompt first.')
  const { args, error } = parsedArgs()
  if (error) return (output.textContent = error)
  state.chatAbort?.abort()
  const abort = (state.chatAbort = new AbortController())
  const body = { args, stream: true }
  const model = $('chat-model').value.trim()
  if (model) body.model = model
  output.textContent = ''
  output.className = 'streaming'
  try {
    const res = await api(`/api/prompts/${encodeURIComponent(prompt.id)}/chat`, {
      method: 'POST',
      body,
      signal: abort.signal,
    })
    if (!res.ok) return fill(output, errorView(await readJson(res)))
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
    let buffer = ''
    for (;;) {
      const { value, done } = await reader.read()
      if (done) break
      buffer += value
      const lines = buffer.split('\n')
      buffer = lines.pop()
      for (const line of lines) {
        if (!line.startsWith('data:')) continue
        const data = line.slice(5).trim()
        if (data === '[DONE]') continue
        try {
          const chunk = JSON.parse(data)
          if (chunk.error) output.append(`\n[${chunk.error.code ?? 'error'}: ${chunk.error.message ?? ''}]`)
          const content = chunk.choices?.[0]?.delta?.content
          if (typeof content === 'string') output.append(content)
        } catch {
          // Not an event of ours: skipped.
        }
      }
    }
    output.className = 'done'
  } catch (e) {
    if (!abort.signal.aborted) output.append(`\n[${e.message}]`)
  }
}

// ---- wiring

$('filter').addEventListener('input', showList)
$('supports').addEventListener('change', showList)
templateEditor.addEventListener('input', () => {
  showDraft()
  scheduleRender()
})
argsEditor.addEventListener('input', () => {
  const { args, error } = parsedArgs()
  $('args-note').textContent = error ?? ''
  if (args) state.form?.show(args)
  scheduleRender()
})
$('render-button').addEventListener('click', render)
$('reset-template').addEventListener('click', () => {
  templateEditor.value = state.stored
  showDraft()
  render()
})
$('chat-form').addEventListener('submit', chat)
const tests = testsPanel({ current: () => state.current, draft: draftRecord, args: parsedArgs })
loadHealth()
loadPrompts()

// The chat panel: the draft (or the stored prompt when nothing is edited)
// rendered with these args and sent through POST /api/prompts/{id}/chat,
// with the model and its parameters; a conversation of user and assistant
// turns after the rendered prompt, sent again as `messages` at each turn;
// and a compare: a second model's column, sent the same turns in parallel.
// Each answer (chat-answer.js) streams in with its steps, parsed and usage.
import { api, readJson } from './api.js'
import { readAnswer } from './chat-answer.js'
import { $, errorView, fill, h } from './dom.js'
import { page } from './page.js'

/** Turns of a conversation at most: each is sent again with the next (the service takes 1,000 messages). */
const MAX_TURNS = 100
/** Characters of a user message at most. */
const MAX_MESSAGE_CHARS = 100_000

/** The panel in `host`, built here; `llm` says whether the service has an LLM configured. */
export function chatPanel(host, { llm }) {
  const note = h(
    'p',
    { id: 'chat-note', className: 'note' },
    llm ? '' : 'No LLM is configured (LLM_BASE_URL or LLM_ROUTES): chat is off.',
  )
  const problem = h('p', { className: 'chat-problem', role: 'alert', 'data-testid': 'chat-problem' })
  /** A labelled input; `list` (read-only as a property) set as the attribute. */
  const input = (id, label, { list, ...props } = {}) => {
    const el = h('input', { id, 'data-testid': id, ...props })
    if (list) el.setAttribute('list', list)
    return h('label', { className: 'chat-field' }, label, el)
  }
  const compare = h('input', { id: 'chat-compare', 'data-testid': 'chat-compare', type: 'checkbox' })
  const second = input('chat-model-b', 'Second model', { list: 'chat-models', autocomplete: 'off' })
  second.hidden = true
  const message = h('textarea', {
    id: 'chat-input',
    'data-testid': 'chat-input',
    rows: 3,
    maxLength: MAX_MESSAGE_CHARS,
    placeholder: 'A message after the rendered prompt (optional for the first turn)',
  })
  const columns = [column('chat', 'First model'), column('compare', 'Second model')]
  columns[1].el.hidden = true
  const form = h(
    'form',
    { id: 'chat-form', className: 'chat-form', hidden: !llm },
    h(
      'div',
      { className: 'chat-params' },
      input('chat-model', 'Model', { list: 'chat-models', autocomplete: 'off', placeholder: 'LLM_DEFAULT_MODEL' }),
      input('chat-temperature', 'Temperature', { type: 'number', min: 0, max: 2, step: 0.1, placeholder: 'default' }),
      input('chat-max-tokens', 'Max tokens', { type: 'number', min: 1, step: 1, placeholder: 'default' }),
      h('label', { className: 'chat-field chat-check' }, compare, 'Compare with a second model'),
      second,
      h('datalist', { id: 'chat-models' }),
    ),
    h('label', { className: 'block' }, 'Message', message),
    h(
      'div',
      { className: 'chat-buttons' },
      h('button', { id: 'chat-button', 'data-testid': 'chat-button', type: 'submit' }, 'Send'),
      h(
        'button',
        { id: 'chat-reset', 'data-testid': 'chat-reset', type: 'button', onclick: reset },
        'New conversation',
      ),
      h('span', { className: 'note', 'data-testid': 'chat-sends' }),
    ),
    problem,
    h(
      'div',
      { className: 'chat-columns' },
      columns.map((c) => c.el),
    ),
  )
  fill(host, note, form)
  if (!llm) return

  let abort = null
  let turns = 0
  const sends = form.querySelector('[data-testid=chat-sends]')

  /** Says what a send would render: the draft or the stored record. */
  function showSends() {
    const draft = page.prompt && page.draft()
    const version = page.view.version === null ? '' : ` (version ${page.view.version})`
    sends.textContent = !page.prompt ? '' : draft ? 'sends the draft' : `sends the stored prompt${version}`
  }

  function reset() {
    abort?.abort()
    turns = 0
    problem.textContent = ''
    for (const c of columns) c.clear()
  }

  async function send(event) {
    event.preventDefault()
    problem.textContent = ''
    const prompt = page.prompt
    if (!prompt) return (problem.textContent = 'Select a prompt first.')
    const base = requestBase()
    if (base.error) return (problem.textContent = base.error)
    const text = message.value.trim()
    if (turns > 0 && text === '') return (problem.textContent = 'Type the next message of the conversation.')
    if (turns >= MAX_TURNS)
      return (problem.textContent = `A conversation has ${MAX_TURNS} turns at most: start a new one.`)
    abort?.abort()
    const controller = (abort = new AbortController())
    const path = `/api/prompts/${encodeURIComponent(prompt.id)}/chat${base.version}`
    const open = columns.filter((c) => !c.el.hidden)
    message.value = ''
    turns++
    await Promise.all(open.map((c) => c.ask(path, base.body, text, turns === 1, controller.signal)))
  }

  /** The body every column sends (the model aside), or `{error}` naming what is not usable. */
  function requestBase() {
    const { args, error } = page.args()
    if (error) return { error }
    const draft = page.draft()
    if (draft?.error) return { error: draft.error }
    const body = { args, stream: true }
    if (draft) {
      body.draft = draft
      if (Object.keys(page.overrides).length > 0) body.variables = page.overrides
    }
    const temperature = $('chat-temperature').value.trim()
    if (temperature !== '') {
      body.temperature = Number(temperature)
      if (!Number.isFinite(body.temperature)) return { error: 'The temperature must be a number.' }
    }
    const maxTokens = $('chat-max-tokens').value.trim()
    if (maxTokens !== '') {
      body.max_tokens = Number(maxTokens)
      if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1)
        return { error: 'Max tokens must be a whole number from 1.' }
    }
    // A draft is rendered as it is; the stored prompt as the page shows it.
    const version = !draft && page.view.version !== null ? `?version=${page.view.version}` : ''
    return { body, version }
  }

  compare.addEventListener('change', () => {
    second.hidden = columns[1].el.hidden = !compare.checked
    form.querySelector('.chat-columns').classList.toggle('two', compare.checked)
    // Both columns must have the same turns: a compare starts a new conversation.
    reset()
  })
  form.addEventListener('submit', send)
  page.on('select', () => (reset(), showSends()))
  page.on('edit', showSends)
  showSends()
  loadModels()
}

/**
 * One model's column: its model input (the first column's is the form's
 * `chat-model`), the transcript, and the messages sent so far.
 */
function column(prefix, title) {
  const transcript = h('ol', { className: 'transcript', 'data-testid': `${prefix}-output` })
  const heading = h('h4', {}, title)
  const el = h('section', { className: 'chat-column', 'aria-label': title }, heading, transcript)
  /** The user and assistant turns after the rendered prompt, as sent. */
  let messages = []
  const modelOf = () => $(prefix === 'chat' ? 'chat-model' : 'chat-model-b').value.trim()
  return {
    el,
    clear() {
      messages = []
      transcript.replaceChildren()
    },
    async ask(path, base, text, first, signal) {
      const model = modelOf()
      heading.textContent = `${title}: ${model || 'the default model'}`
      const sent = text === '' ? messages : [...messages, { role: 'user', content: text }]
      const body = { ...base, ...(model ? { model } : {}), ...(sent.length > 0 ? { messages: sent } : {}) }
      transcript.append(
        h(
          'li',
          { className: 'turn user', 'data-role': 'user' },
          first ? h('p', { className: 'note' }, base.draft ? 'the rendered draft' : 'the rendered prompt') : null,
          text === '' ? null : h('pre', { className: 'chat-text' }, text),
        ),
      )
      const turn = h('li', { className: 'turn assistant', 'data-role': 'assistant', 'data-state': 'streaming' })
      transcript.append(turn)
      const started = performance.now()
      let res
      try {
        res = await api(path, { method: 'POST', body, signal })
      } catch (e) {
        turn.dataset.state = signal.aborted ? 'stopped' : 'failed'
        return signal.aborted || fill(turn, errorView({ code: 'NETWORK', message: e.message }))
      }
      const content = await readAnswer(res, turn, started, signal)
      if (content !== null) messages = [...sent, { role: 'assistant', content }]
    },
  }
}

/** The service's models (GET /v1/models) as the model inputs' suggestions; none when it cannot say. */
async function loadModels() {
  try {
    const res = await api('/v1/models')
    const body = await readJson(res)
    if (!res.ok || !Array.isArray(body.data)) return
    fill(
      $('chat-models'),
      body.data.slice(0, 500).map((m) => h('option', { value: String(m.id) })),
    )
  } catch {
    // Suggestions only: typing a model still works.
  }
}

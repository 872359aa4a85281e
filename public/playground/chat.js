// The chat panel: the draft (or the stored prompt when nothing is edited)
// rendered with these args and sent through POST /api/prompts/{id}/chat,
// with the model and its parameters; a conversation of user and assistant
// turns after the rendered prompt, sent again as `messages` at each turn;
// and a compare: a second model's column, sent the same turns in parallel.
// Each answer (chat-answer.js) streams in with its steps, parsed and usage.
import { api, readJson } from './api.js'
import { readAnswer } from './chat-answer.js'
import { errorView, fill, h } from './dom.js'
import { page } from './page.js'

/** Turns of a conversation at most: each is sent again with the next (the service takes 1,000 messages). */
const MAX_TURNS = 100
/** Characters of a user message at most. */
const MAX_MESSAGE_CHARS = 100_000

/** The panel in `host`, built here (nothing of the page's own markup in `host` is used); `llm` says whether the service has an LLM configured. */
export function chatPanel(host, { llm }) {
  const note = h(
    'p',
    { id: 'chat-note', className: 'note' },
    llm ? '' : 'No LLM is configured (LLM_BASE_URL or LLM_ROUTES): chat is off.',
  )
  const problem = h('p', { className: 'chat-problem', role: 'alert', 'data-testid': 'chat-problem' })
  // Each answer's end said once, for a screen reader too: the streamed text itself is not announced word by word.
  const status = h('p', { className: 'note chat-status', role: 'status', 'data-testid': 'chat-status' })
  const models = h('datalist', { id: 'chat-models' })
  /** A labelled input: the input and its label; `list` (read-only as a property) set as the attribute. */
  const input = (id, label, { list, ...props } = {}) => {
    const el = h('input', { id, 'data-testid': id, ...props })
    if (list) el.setAttribute('list', list)
    return { el, label: h('label', { className: 'chat-field' }, label, el) }
  }
  const model = input('chat-model', 'Model', {
    list: 'chat-models',
    autocomplete: 'off',
    placeholder: 'LLM_DEFAULT_MODEL',
  })
  const modelB = input('chat-model-b', 'Second model', { list: 'chat-models', autocomplete: 'off' })
  const temperature = input('chat-temperature', 'Temperature', {
    type: 'number',
    min: 0,
    max: 2,
    step: 0.1,
    placeholder: 'default',
  })
  const maxTokens = input('chat-max-tokens', 'Max tokens', { type: 'number', min: 1, step: 1, placeholder: 'default' })
  const compare = h('input', { id: 'chat-compare', 'data-testid': 'chat-compare', type: 'checkbox' })
  modelB.label.hidden = true
  const message = h('textarea', {
    id: 'chat-input',
    'data-testid': 'chat-input',
    rows: 3,
    maxLength: MAX_MESSAGE_CHARS,
    placeholder: 'A message after the rendered prompt (optional for the first turn)',
  })
  const columns = [column('chat', 'First model', model.el), column('compare', 'Second model', modelB.el)]
  columns[1].el.hidden = true
  const sends = h('span', { className: 'note', 'data-testid': 'chat-sends' })
  const columnsEl = h(
    'div',
    { className: 'chat-columns' },
    columns.map((c) => c.el),
  )
  const form = h(
    'form',
    { id: 'chat-form', className: 'chat-form', hidden: !llm, 'aria-label': 'Chat' },
    h(
      'div',
      { className: 'chat-params' },
      model.label,
      temperature.label,
      maxTokens.label,
      h('label', { className: 'chat-field chat-check' }, compare, 'Compare with a second model'),
      modelB.label,
      models,
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
      sends,
    ),
    problem,
    status,
    columnsEl,
  )
  fill(host, note, form)
  if (!llm) return

  let abort = null
  /** Turns of the conversation: those every open column answered (a failed or stopped one is not sent again). */
  let turns = 0

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
    status.textContent = ''
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
    status.textContent = `Turn ${turns + 1}: waiting for the answer…`
    const asked = await Promise.all(open.map((c) => c.ask(path, base.body, text, turns === 0, controller.signal)))
    // The turn is the conversation's only when every column answered it: the columns keep the same turns.
    const stopped = controller.signal.aborted
    const kept = !stopped && asked.every((a) => a.content !== null)
    for (const a of asked) (kept ? a.keep : a.drop)(stopped ? 'stopped' : 'failed')
    if (kept) turns++
    // The text of a turn not sent is given back, unless a newer send took the input or another is being typed.
    else if (abort === controller && text !== '' && message.value === '') message.value = text
    if (!stopped) status.textContent = kept ? `Turn ${turns}: answered.` : `Turn not sent: the answer failed.`
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
    const t = temperature.el.value.trim()
    if (t !== '') {
      body.temperature = Number(t)
      if (!Number.isFinite(body.temperature)) return { error: 'The temperature must be a number.' }
    }
    const m = maxTokens.el.value.trim()
    if (m !== '') {
      body.max_tokens = Number(m)
      if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1)
        return { error: 'Max tokens must be a whole number from 1.' }
    }
    // A draft is rendered as it is; the stored prompt as the page shows it.
    const version = !draft && page.view.version !== null ? `?version=${page.view.version}` : ''
    return { body, version }
  }

  compare.addEventListener('change', () => {
    modelB.label.hidden = columns[1].el.hidden = !compare.checked
    columnsEl.classList.toggle('two', compare.checked)
    // Both columns must have the same turns: a compare starts a new conversation.
    reset()
  })
  form.addEventListener('submit', send)
  page.on('select', () => (reset(), showSends()))
  page.on('edit', showSends)
  showSends()
  loadModels(models)
}

/**
 * One model's column: its model input `modelInput`, the transcript, and the
 * messages of the conversation so far. `ask` answers what the turn would
 * add; the panel then keeps it or drops it (marked "not sent") in every column.
 */
function column(prefix, title, modelInput) {
  const transcript = h('ol', { className: 'transcript', 'data-testid': `${prefix}-output`, 'aria-label': title })
  const heading = h('h4', {}, title)
  const el = h('section', { className: 'chat-column', 'aria-label': title }, heading, transcript)
  /** The user and assistant turns after the rendered prompt, as sent. */
  let messages = []
  return {
    el,
    clear() {
      messages = []
      transcript.replaceChildren()
    },
    /** Resolves to `{content, keep, drop}`: content null when the answer failed or stopped. */
    async ask(path, base, text, first, signal) {
      const model = modelInput.value.trim()
      heading.textContent = `${title}: ${model || 'the default model'}`
      const sent = text === '' ? messages : [...messages, { role: 'user', content: text }]
      const body = { ...base, ...(model ? { model } : {}), ...(sent.length > 0 ? { messages: sent } : {}) }
      const user = h(
        'li',
        { className: 'turn user', 'data-role': 'user' },
        first ? h('p', { className: 'note' }, base.draft ? 'the rendered draft' : 'the rendered prompt') : null,
        text === '' ? null : h('pre', { className: 'chat-text' }, text),
      )
      const turn = h('li', { className: 'turn assistant', 'data-role': 'assistant', 'data-state': 'streaming' })
      transcript.append(user, turn)
      const busy = () =>
        transcript.setAttribute('aria-busy', String(transcript.querySelector('[data-state=streaming]') !== null))
      busy()
      const content = await answer(path, body, turn, signal)
      busy()
      return {
        content,
        keep: () => (messages = [...sent, { role: 'assistant', content }]),
        drop: (why) => {
          // Shown as it was, but marked: the next turn is sent without it.
          for (const li of [user, turn]) {
            li.dataset.sent = 'no'
            li.classList.add('not-sent')
          }
          user.append(
            h(
              'p',
              { className: 'note not-sent-note' },
              `not sent: the answer ${why}, this turn is not part of the conversation`,
            ),
          )
        },
      }
    },
  }
}

/** The answer of one request into `turn`: its text, or null when it failed or was stopped. */
async function answer(path, body, turn, signal) {
  const started = performance.now()
  let res
  try {
    res = await api(path, { method: 'POST', body, signal })
  } catch (e) {
    turn.dataset.state = signal.aborted ? 'stopped' : 'failed'
    if (!signal.aborted) fill(turn, errorView({ code: 'NETWORK', message: e.message }))
    return null
  }
  return readAnswer(res, turn, started, signal)
}

/** The service's models (GET /v1/models) as the model inputs' suggestions in `list`; none when it cannot say. */
async function loadModels(list) {
  try {
    const res = await api('/v1/models')
    const body = await readJson(res)
    if (!res.ok || !Array.isArray(body.data)) return
    fill(
      list,
      body.data.slice(0, 500).map((m) => h('option', { value: String(m.id) })),
    )
  } catch {
    // Suggestions only: typing a model still works.
  }
}

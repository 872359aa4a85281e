// The shared variables the template reads: each path with its value as the
// latest render saw it (the render answer's `variables`) and how long ago the
// service read it, and an override per path for this page's drafts
// (page.overrides, sent as `variables` with draft renders and chats; never
// written anywhere). Rows stay in place across renders so typing in an
// override keeps its focus.
import { fill, h } from './dom.js'
import { page } from './page.js'

/** Characters of a value shown before "…" (the service clips at 4,096 and sends a preview past that). */
const SHOWN_CHARS = 4096

/** How long ago `ms` was, in words. */
function ago(ms) {
  if (ms < 1000) return 'just now'
  if (ms < 60_000) return `${Math.round(ms / 1000)} s ago`
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min ago`
  return `${Math.round(ms / 3_600_000)} h ago`
}

/** When the service's copy of the value was read, in words. */
function ageText(entry) {
  if (entry.age_ms === null) return 'built into the example store'
  if (entry.age_ms === undefined) return ''
  return entry.age_ms === 0 ? 'read from the store by this render' : `read ${ago(entry.age_ms)}`
}

function valueText(entry) {
  if (entry.unknown) return 'not known: the render did not say'
  if (entry.missing) return 'missing: no shared variable at this path'
  if (entry.truncated) return `${entry.preview ?? ''}… (too large to show whole)`
  const text = JSON.stringify(entry.value, null, 2) ?? 'undefined'
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text
}

/** Path segments that would reach an object's prototype rather than a key of it. */
const UNSAFE = new Set(['__proto__', 'constructor', 'prototype'])
const unsafePath = (path) => path.split('.').some((key) => UNSAFE.has(key))

/** `path` ("a.b.c", none of its segments UNSAFE) set to `value` in `target`, making the objects on the way. */
function setPath(target, path, value) {
  const keys = path.split('.')
  if (keys.some((key) => UNSAFE.has(key))) return
  let at = target
  for (const key of keys.slice(0, -1)) {
    if (at[key] === null || typeof at[key] !== 'object' || Array.isArray(at[key])) at[key] = {}
    at = at[key]
  }
  at[keys.at(-1)] = value
}

/** The panel in `host`. */
export function variablesPanel(host) {
  /** path -> the override typed for it (parsed JSON). */
  const overrides = new Map()
  /** path -> its row's parts. */
  const rows = new Map()
  let promptId = null
  const list = h('ul', { className: 'variables', 'data-testid': 'variable-list' })
  const clear = h(
    'button',
    { type: 'button', 'data-testid': 'clear-overrides', disabled: true, onclick: () => clearOverrides() },
    'Clear overrides',
  )
  const note = h('p', { className: 'note' }, '')
  fill(
    host,
    h('h3', {}, 'Shared variables ', clear),
    h(
      'p',
      { className: 'note' },
      'Values as the last render saw them. Overrides apply to this page’s draft renders and chats only: they are never written.',
    ),
    list,
    note,
  )
  host.hidden = true

  function applyOverrides() {
    page.overrides = {}
    for (const [path, value] of overrides) setPath(page.overrides, path, value)
    clear.disabled = overrides.size === 0
    page.emit('edit')
  }

  function clearOverrides() {
    overrides.clear()
    for (const row of rows.values()) {
      row.input.value = ''
      row.input.removeAttribute('aria-invalid')
    }
    note.textContent = ''
    applyOverrides()
  }

  function rowFor(path) {
    const input = h('input', {
      className: 'override',
      'data-testid': 'variable-override',
      placeholder: 'override, as JSON ("rust", 3, […])',
      spellcheck: false,
      'aria-label': `Override ${path} (JSON)`,
      oninput: () => typed(path, input),
    })
    const row = {
      el: null,
      value: h('pre', { className: 'text value', 'data-testid': 'variable-value' }),
      age: h('span', { className: 'note age' }),
      badge: h('span', { className: 'badge' }),
      input,
    }
    row.el = h(
      'li',
      { className: 'variable', 'data-testid': 'variable', 'data-path': path },
      h('div', { className: 'variable-head' }, h('code', { className: 'id', title: path }, path), row.badge, row.age),
      row.value,
      input,
    )
    return row
  }

  function typed(path, input) {
    const text = input.value.trim()
    if (text !== '' && unsafePath(path)) {
      input.setAttribute('aria-invalid', 'true')
      note.textContent = `${path} cannot be overridden: __proto__, constructor and prototype are not keys the page sets.`
      return
    }
    if (text === '') {
      overrides.delete(path)
      input.removeAttribute('aria-invalid')
      note.textContent = ''
      return applyOverrides()
    }
    try {
      overrides.set(path, JSON.parse(text))
    } catch {
      input.setAttribute('aria-invalid', 'true')
      note.textContent = `The override of ${path} is not JSON (a string needs its quotes): not sent.`
      return
    }
    input.removeAttribute('aria-invalid')
    note.textContent = ''
    applyOverrides()
  }

  /** The entries an answer says the template reads: its `variables`, else the paths of its analysis. */
  function entriesOf(answer) {
    if (Array.isArray(answer?.variables)) return answer.variables
    const reads = answer?.analysis?.reads
    if (!Array.isArray(reads)) return null
    return reads.filter((r) => r !== 'args' && !r.startsWith('args.')).map((path) => ({ path, unknown: true }))
  }

  function show(answer) {
    const entries = entriesOf(answer)
    // A template that does not compile says nothing of what it reads: the rows stay as they were.
    if (entries === null) return
    const shown = new Set(entries.map((e) => e.path))
    for (const [path, row] of rows) {
      if (!shown.has(path) && !overrides.has(path)) {
        row.el.remove()
        rows.delete(path)
      }
    }
    entries.forEach((entry, i) => {
      if (!rows.has(entry.path)) rows.set(entry.path, rowFor(entry.path))
      const row = rows.get(entry.path)
      row.value.textContent = valueText(entry)
      row.age.textContent = ageText(entry)
      row.badge.textContent = entry.overridden ? 'overridden' : entry.missing ? 'missing' : ''
      row.badge.hidden = row.badge.textContent === ''
      // Moved only when out of order: moving a row would take the focus from its input.
      if (list.children[i] !== row.el) list.insertBefore(row.el, list.children[i] ?? null)
    })
    host.hidden = rows.size === 0
  }

  page.on('select', (prompt) => {
    if (prompt.id === promptId) return
    // Another prompt: its own variables, and no overrides carried over.
    promptId = prompt.id
    overrides.clear()
    page.overrides = {}
    clear.disabled = true
    note.textContent = ''
    rows.clear()
    fill(list)
    host.hidden = true
  })
  page.on('rendered', show)
}

// The versions panel: which label and version of the prompt the page shows
// (always said, with who wrote it and when), the diff and side-by-side
// renders of any two versions or labels (A and B) with the page's args, and
// saving the draft as a new version in a label with the admin token (the
// base only after a confirmation in the page).
import { api, readJson } from './api.js'
import { diffLines, hunks } from './diff.js'
import { errorView, fill, h } from './dom.js'
import { page } from './page.js'
import { ADMIN_KEY, writePrompt } from './records.js'

/** A label as the service takes one (docs/versions-and-previews.md#labels). */
const LABEL = /^[a-z0-9][a-z0-9-]{0,62}$/
/** Pages of GET /api/labels read at most. */
const MAX_LABEL_PAGES = 10
/** The label select's choice that reveals the free-text input. */
const OTHER = '\u0000other'
/** The record fields that hold a prompt's template: what saving the draft replaces. */
const TEMPLATE_FIELDS = ['prompt', 'messages']

/** The labels that have records of their own (GET /api/labels), with those named in this tab. */
const labels = new Set()
const labelLists = new Set()

/** The panel in `host`. */
export function versionsPanel(host) {
  const shown = h('p', { className: 'version-shown', 'data-testid': 'version-shown', 'aria-live': 'polite' })
  const view = recordPicker('Showing', (choice) => {
    page.view.label = choice.label
    page.view.version = choice.version
    page.reload()
  })
  const sideA = recordPicker('A')
  const sideB = recordPicker('B')
  const compared = h('div', { className: 'compare-result', 'data-testid': 'version-compare' })
  const saving = saveForm()
  fill(
    host,
    shown,
    h('div', { className: 'versions-row' }, view.elements),
    h(
      'details',
      { className: 'versions-compare' },
      h('summary', {}, 'Compare two versions or labels'),
      h('div', { className: 'versions-row' }, sideA.elements),
      h('div', { className: 'versions-row' }, sideB.elements),
      h('button', { type: 'button', onclick: () => compare(sideA.choice(), sideB.choice(), compared) }, 'Compare'),
      compared,
    ),
    h('details', { className: 'versions-save' }, h('summary', {}, 'Save the draft'), saving.elements),
  )
  host.hidden = false
  loadLabels()

  // A prompt was (re)loaded at page.view: what it shows, and the pickers on its versions. A and B and their
  // comparison stay while the same prompt is shown at another version or label.
  let comparing = null
  page.on('select', async (prompt) => {
    const label = page.view.label
    const other = comparing !== prompt.id
    comparing = prompt.id
    if (other) fill(compared)
    saving.reset()
    const entries = await view.show(prompt.id, { label, version: page.view.version })
    if (page.prompt !== prompt) return
    fill(shown, showingText(label, page.view.version, entries))
    if (other)
      await Promise.all([
        sideA.show(prompt.id, { label, version: entries?.[1]?.version ?? null }),
        sideB.show(prompt.id, { label, version: null }),
      ])
  })
}

/** "showing: label X · version N (by, when)" of the view, from its label's versions (newest first). */
function showingText(label, version, entries) {
  const where = label === null ? 'base' : `label ${label}`
  if (!entries) return `showing: ${where} · ${version === null ? 'as served' : `version ${version}`}`
  const entry = version === null ? entries[0] : entries.find((e) => e.version === version)
  if (!entry) return `showing: ${where} · ${version === null ? 'no stored version' : `version ${version}`}`
  const newest = version === null ? ', newest' : ''
  return [
    h('strong', {}, `showing: ${where} · version ${entry.version}`),
    `${newest} (${writtenBy(entry)})`,
    entry.message ? ` — ${entry.message}` : '',
  ]
}

/** Who wrote a version and when, as the history records it. */
const writtenBy = (entry) => `${entry.by ? `by ${entry.by}, ` : ''}${when(entry.created_at)}`
const when = (at) => (at ? `${at.slice(0, 16).replace('T', ' ')} UTC` : 'time not recorded')

/**
 * A label select (the base, the known labels, another one typed in) and a
 * version select of that label's versions; `onChange(choice)` when the user
 * changes either. `show(id, choice)` loads the prompt's versions in that
 * label and answers them (null when they could not be read).
 */
function recordPicker(name, onChange) {
  const labelSelect = h('select', { 'data-testid': `label-${name.toLowerCase()}` })
  const other = h('input', {
    type: 'text',
    placeholder: 'new-label',
    maxLength: 63,
    hidden: true,
    'aria-label': `${name}: another label`,
  })
  const versionSelect = h('select', { 'data-testid': `version-${name.toLowerCase()}` })
  const note = h('span', { className: 'note' })
  let promptId = null
  let loads = 0

  const choice = () => {
    const picked = labelSelect.value === OTHER ? other.value.trim() : labelSelect.value
    return { label: picked || null, version: versionSelect.value ? Number(versionSelect.value) : null }
  }

  function fillLabels(label) {
    if (label) labels.add(label)
    fill(
      labelSelect,
      h('option', { value: '' }, 'base'),
      [...labels].sort().map((l) => h('option', { value: l }, l)),
      h('option', { value: OTHER }, 'another label…'),
    )
    labelSelect.value = label ?? ''
  }

  async function loadVersions(label, version) {
    const number = ++loads
    fill(versionSelect, h('option', { value: '' }, 'newest'))
    if (label !== null && !LABEL.test(label)) {
      note.textContent = 'A label is 1 to 63 lowercase letters, digits and hyphens.'
      return null
    }
    const res = await api(`/api/prompts/${encodeURIComponent(promptId)}/versions`, { label })
    const body = await readJson(res)
    if (number !== loads) return null
    if (!res.ok) {
      fill(note, errorView(body))
      return null
    }
    note.textContent = ''
    fill(
      versionSelect,
      h('option', { value: '' }, 'newest'),
      body.data.map((e) =>
        h(
          'option',
          { value: String(e.version), disabled: e.deleted },
          `version ${e.version} · ${writtenBy(e)}${e.deleted ? ' · deleted' : ''}${e.message ? ` · ${e.message}` : ''}`,
        ),
      ),
    )
    versionSelect.value = version === null ? '' : String(version)
    return body.data
  }

  labelSelect.addEventListener('change', async () => {
    other.hidden = labelSelect.value !== OTHER
    if (!other.hidden) return other.focus()
    await loadVersions(choice().label, null)
    onChange?.(choice())
  })
  other.addEventListener('change', async () => {
    const { label } = choice()
    if ((await loadVersions(label, null)) && label) labels.add(label)
    onChange?.(choice())
  })
  versionSelect.addEventListener('change', () => onChange?.(choice()))
  labelLists.add(() => labelSelect.value !== OTHER && fillLabels(choice().label))

  return {
    elements: [h('label', {}, `${name}: label `, labelSelect), other, h('label', {}, ' version ', versionSelect), note],
    choice,
    show(id, { label, version }) {
      promptId = id
      other.hidden = true
      fillLabels(label)
      return loadVersions(label, version)
    },
  }
}

/** The labels that have records (GET /api/labels, page after page); none listed when the service has no such route. */
async function loadLabels() {
  let cursor = null
  for (let pages = 0; pages < MAX_LABEL_PAGES; pages++) {
    const res = await api(`/api/labels${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, { label: null })
    if (!res.ok) return
    const body = await readJson(res)
    for (const { label } of body.data ?? []) labels.add(label)
    cursor = body.next_cursor
    if (!cursor) break
  }
  for (const refill of labelLists) refill()
}

/** The text a version holds: its template, or its messages each under its role. */
function templateText(value) {
  if (typeof value === 'string') return value
  return (value ?? [])
    .map((m) => `[${m.role}]\n${typeof m.content === 'string' ? m.content : JSON.stringify(m.content, null, 2)}`)
    .join('\n')
}

const sideName = ({ label, version }) =>
  `${label === null ? 'base' : `label ${label}`} · ${version === null ? 'newest' : `version ${version}`}`

/** Reads A and B, shows the diff of their text and their renders with the page's args, side by side. */
async function compare(a, b, host) {
  const prompt = page.prompt
  if (!prompt) return
  const { args, error } = page.args()
  fill(host, h('p', { className: 'note' }, 'comparing…'))
  const id = encodeURIComponent(prompt.id)
  const query = ({ version }) => (version === null ? '' : `?version=${version}`)
  const read = async (path, side, body) => {
    try {
      const res = await api(path, { label: side.label, method: body ? 'POST' : 'GET', body })
      return { ok: res.ok, body: await readJson(res) }
    } catch (e) {
      return { ok: false, body: { code: 'NETWORK', message: e.message } }
    }
  }
  const renderOf = (side) =>
    error
      ? { ok: false, body: { code: 'NOT_SENT', message: error } }
      : read(`/api/prompts/${id}/render${query(side)}`, side, { args })
  const [recordA, recordB, renderA, renderB] = await Promise.all([
    read(`/api/prompts/${id}${query(a)}`, a),
    read(`/api/prompts/${id}${query(b)}`, b),
    renderOf(a),
    renderOf(b),
  ])
  if (page.prompt !== prompt) return
  fill(
    host,
    h('h4', {}, `Diff of the text: A (${sideName(a)}) → B (${sideName(b)})`),
    recordA.ok && recordB.ok
      ? diffView(recordA.body.data, recordB.body.data)
      : errorView(recordA.ok ? recordB.body : recordA.body),
    h('h4', {}, 'Rendered with the same args'),
    h(
      'div',
      { className: 'side-by-side', 'data-testid': 'compare-renders' },
      [
        [a, renderA],
        [b, renderB],
      ].map(([side, answer], at) =>
        h(
          'figure',
          { 'data-testid': `compare-render-${at === 0 ? 'a' : 'b'}` },
          h('figcaption', {}, `${at === 0 ? 'A' : 'B'}: ${sideName(side)}`),
          answer.ok && answer.body.status === 'success'
            ? h('pre', { className: 'text' }, templateText(answer.body.rendered_prompt))
            : errorView(answer.body),
        ),
      ),
    ),
  )
}

/** The line diff of two records' text, and which of their other fields differ. */
function diffView(a, b) {
  const textOf = (p) => templateText(p.prompt ?? p.messages)
  const diff = diffLines(textOf(a), textOf(b))
  const others = ['parameters', 'tools', 'returns', 'tests'].filter(
    (k) => JSON.stringify(a[k] ?? null) !== JSON.stringify(b[k] ?? null),
  )
  const sign = { same: ' ', del: '-', add: '+' }
  return h(
    'div',
    { 'data-testid': 'version-diff' },
    diff.tooLarge
      ? h(
          'p',
          { className: 'note' },
          `Too large to diff: ${diff.lines[0]} and ${diff.lines[1]} lines (2,000 a side at most).`,
        )
      : diff.ops.every((o) => o.op === 'same')
        ? h('p', { className: 'note' }, 'The text is the same.')
        : h(
            'div',
            { className: 'diff' },
            hunks(diff.ops).map((o) =>
              o.op === 'skip'
                ? h('div', { className: 'diff-skip' }, `… ${o.count} unchanged line(s)`)
                : h('div', { className: `diff-${o.op}` }, h('span', { className: 'diff-sign' }, sign[o.op]), o.text),
            ),
          ),
    h('p', { className: 'note' }, others.length ? `Also different: ${others.join(', ')}.` : 'No other field differs.'),
  )
}

/**
 * The form that saves page.draft()'s template as a new version in a label
 * (typed, or picked from the known ones); the base (no label) asks "Save to
 * the base?" in the page first.
 */
function saveForm() {
  const listId = 'versions-labels'
  const labelInput = h('input', { type: 'text', placeholder: 'label (empty: the base)', maxLength: 63 })
  // `list` is a read-only property: only its attribute names the datalist.
  labelInput.setAttribute('list', listId)
  const message = h('input', { type: 'text', placeholder: 'what changed', maxLength: 200 })
  const token = h('input', { type: 'password', autocomplete: 'off', placeholder: 'ADMIN_TOKEN' })
  const note = h('p', { className: 'note', 'data-testid': 'save-draft-note', 'aria-live': 'polite' })
  const confirm = h(
    'div',
    { className: 'confirm', role: 'alertdialog', 'aria-label': 'Save to the base?', hidden: true },
    h('strong', {}, 'Save to the base? '),
    'Every caller without a label is served it.',
    h('button', { type: 'button', onclick: () => save(null) }, 'Confirm'),
    h('button', { type: 'button', onclick: () => (confirm.hidden = true) }, 'Cancel'),
  )
  const datalist = h('datalist', { id: listId })
  labelLists.add(() =>
    fill(
      datalist,
      [...labels].sort().map((l) => h('option', { value: l })),
    ),
  )
  token.value = sessionStorage.getItem(ADMIN_KEY) ?? ''

  /** The draft's template fields, or why there is nothing to save. */
  function draftTemplate() {
    const draft = page.draft()
    if (draft?.error) return { error: draft.error }
    const fields = Object.fromEntries(TEMPLATE_FIELDS.filter((k) => draft?.[k] != null).map((k) => [k, draft[k]]))
    const same = TEMPLATE_FIELDS.every(
      (k) => JSON.stringify(fields[k] ?? null) === JSON.stringify(page.prompt?.[k] ?? null),
    )
    return same ? { error: 'Nothing to save: the template is as stored. Edit it first.' } : { fields }
  }

  function submit(event) {
    event.preventDefault()
    confirm.hidden = true
    const label = labelInput.value.trim()
    if (label && !LABEL.test(label))
      return (note.textContent = 'A label is 1 to 63 lowercase letters, digits and hyphens.')
    if (!label) {
      note.textContent = ''
      confirm.hidden = false
      return confirm.querySelector('button').focus()
    }
    save(label)
  }

  async function save(label) {
    confirm.hidden = true
    const prompt = page.prompt
    if (!prompt) return
    const draft = draftTemplate()
    if (draft.error) return (note.textContent = draft.error)
    const given = token.value.trim()
    if (!given) return (note.textContent = 'Saving writes a version: give the admin token (ADMIN_TOKEN).')
    sessionStorage.setItem(ADMIN_KEY, given)
    note.textContent = 'saving…'
    const replace = (entry) => {
      const kept = Object.fromEntries(Object.entries(entry).filter(([k]) => !TEMPLATE_FIELDS.includes(k)))
      return { ...kept, ...draft.fields }
    }
    let written
    try {
      written = await writePrompt(prompt, replace, {
        token: given,
        label,
        message: message.value.trim() || 'playground: draft saved',
      })
    } catch (e) {
      written = { error: { code: 'NETWORK', message: e.message } }
    }
    if (written.error) return fill(note, errorView(written.error))
    note.textContent = `Saved the draft as version ${written.version} of ${written.where}.`
    if (label) labels.add(label)
    for (const refill of labelLists) refill()
    // The page now shows what was saved.
    page.view.label = label
    page.view.version = null
    page.reload()
  }

  return {
    elements: h(
      'form',
      { className: 'versions-row', onsubmit: submit },
      h('label', {}, 'Label ', labelInput),
      datalist,
      h('label', {}, 'Message ', message),
      h('label', {}, 'Token to write (ADMIN_TOKEN) ', token),
      h('button', { type: 'submit' }, 'Save draft'),
      confirm,
      note,
    ),
    reset() {
      confirm.hidden = true
    },
  }
}

// The versions panel: which label and version of the prompt the page shows
// (always said, with who wrote it and when), the diff and side-by-side
// renders of any two versions or labels (A and B) with the page's args, and
// the form that saves the draft (save-draft.js).
import { api, readJson } from './api.js'
import { diffLines, hunks } from './diff.js'
import { contentText, errorView, fill, h, renderedView } from './dom.js'
import { addLabel, knownLabels, LABEL, LABEL_RULE, loadLabels, onLabels } from './labels.js'
import { page } from './page.js'
import { saveDraftForm } from './save-draft.js'
/** The label select's choice that reveals the free-text input. */
const OTHER = '\u0000other'

/** The panel in `host`. */
export function versionsPanel(host) {
  const shown = h('p', { className: 'version-shown', 'data-testid': 'version-shown', 'aria-live': 'polite' })
  // The page moves only once the record is read: a failed read leaves it, and this picker, on what it shows.
  const view = recordPicker('Showing', 'Open', async (choice) => {
    const failed = await page.reload(choice)
    if (!failed || !page.prompt) return
    await view.show(page.prompt.id, page.view)
    view.say(errorView(failed))
  })
  const sideA = recordPicker('A', 'A')
  const sideB = recordPicker('B', 'B')
  const compared = h('div', { className: 'compare-result', 'data-testid': 'version-compare' })
  const saving = saveDraftForm()
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
      h('button', { type: 'button', onclick: () => compareNow() }, 'Compare'),
      compared,
    ),
    h('details', { className: 'versions-save' }, h('summary', {}, 'Save the draft'), saving.elements),
  )
  host.hidden = false

  // A prompt was (re)loaded at page.view: what it shows, and the pickers on its versions. A and B and their
  // comparison stay while the same prompt is shown at another version or label.
  let comparing = null
  /** The number of the latest comparison: an earlier one's answers are dropped. */
  let compares = 0
  const compareNow = () => {
    const number = ++compares
    return compare(sideA.pinned(), sideB.pinned(), compared, () => number === compares)
  }
  page.on('select', async (prompt) => {
    // The labels once a prompt is shown: not before the prompt list, whose 401 asks for the API token.
    if (comparing === null) loadLabels()
    const label = page.view.label
    const other = comparing !== prompt.id
    comparing = prompt.id
    if (other) {
      compares++
      fill(compared)
    }
    saving.reset()
    const entries = await view.show(prompt.id, { label, version: page.view.version })
    if (page.prompt !== prompt) return
    saving.basedOn(page.view.version, entries)
    fill(shown, showingText(label, page.view.version, entries), rolledOut(prompt))
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
  // No history (the embedded store's built-in records, or a version not among them): what was asked for.
  if (!entry) return `showing: ${where} · ${version === null ? 'as served, no version history' : `version ${version}`}`
  const newest = version === null ? ', newest' : ''
  return [
    h('strong', {}, `showing: ${where} · version ${entry.version}`),
    `${newest} (${writtenBy(entry)})`,
    entry.message ? ` — ${entry.message}` : '',
  ]
}

/** With no version picked, a rollout (shown by the shell) chooses the version each render serves. */
const rolledOut = (prompt) =>
  prompt.rollout && page.view.version === null ? ' · its renders follow the rollout: pick a version to pin one' : ''

/** Who wrote a version and when, as the history records it. */
const writtenBy = (entry) => `${entry.by ? `by ${entry.by}, ` : ''}${when(entry.created_at)}`
const when = (at) => (at ? `${at.slice(0, 16).replace('T', ' ')} UTC` : 'time not recorded')

/**
 * A label select (the base, the known labels, another one typed in) and a
 * version select of that label's versions; `onChange(choice)` when the user
 * changes either. `show(id, choice)` loads the prompt's versions in that
 * label and answers them (null when they could not be read). `choice()` is
 * the label whose versions are listed (a label being typed counts once
 * committed, by Enter or leaving the field) and the version picked (null:
 * newest); `pinned()` the same with "newest" as that label's newest version
 * number, when its history is known. `say(node)` shows a note. `name` makes
 * its test ids, `caption` its labels' text.
 */
function recordPicker(name, caption, onChange) {
  const labelSelect = h('select', { 'data-testid': `label-${name.toLowerCase()}` })
  const other = h('input', {
    type: 'text',
    placeholder: 'new-label',
    maxLength: 63,
    hidden: true,
    'aria-label': `${caption}: another label`,
  })
  const versionSelect = h('select', { 'data-testid': `version-${name.toLowerCase()}` })
  const note = h('span', { className: 'note' })
  let promptId = null
  let loads = 0
  /** The label whose versions the version select lists, and those versions (null: not read). */
  let listed = null
  let entries = null

  const typedLabel = () => (labelSelect.value === OTHER ? other.value.trim() : labelSelect.value) || null
  const choice = () => ({ label: listed, version: versionSelect.value ? Number(versionSelect.value) : null })
  const pinned = () => {
    const { label, version } = choice()
    return { label, version: version ?? entries?.find((e) => !e.deleted)?.version ?? null }
  }

  function fillLabels(label) {
    addLabel(label)
    fill(
      labelSelect,
      h('option', { value: '' }, 'base'),
      knownLabels().map((l) => h('option', { value: l }, l)),
      h('option', { value: OTHER }, 'another label…'),
    )
    labelSelect.value = label ?? ''
  }

  async function loadVersions(label, version) {
    const number = ++loads
    listed = label
    entries = null
    fill(versionSelect, h('option', { value: '' }, 'newest'))
    let res, body
    try {
      res = await api(`/api/prompts/${encodeURIComponent(promptId)}/versions`, { label })
      body = await readJson(res)
    } catch (e) {
      body = { code: 'NETWORK', message: e.message }
    }
    if (number !== loads) return null
    if (!res?.ok) {
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
    entries = body.data
    return body.data
  }

  /** A label picked: the view's picker moves the page (which then shows this picker again), A's and B's load its versions. */
  async function pick(label) {
    if (label !== null && !LABEL.test(label)) return (note.textContent = LABEL_RULE)
    if (onChange) return onChange({ label, version: null })
    if (await loadVersions(label, null)) addLabel(label)
  }

  labelSelect.addEventListener('change', () => {
    other.hidden = labelSelect.value !== OTHER
    if (!other.hidden) return other.focus()
    pick(typedLabel())
  })
  other.addEventListener('change', () => pick(typedLabel()))
  versionSelect.addEventListener('change', () => {
    // A label typed but not committed yet: the versions listed are another label's, the change waits for it.
    if (typedLabel() !== listed) {
      const typed = typedLabel()
      versionSelect.value = ''
      note.textContent =
        typed !== null && !LABEL.test(typed)
          ? LABEL_RULE
          : 'Press Enter in the label field first: its versions are not listed yet.'
      return
    }
    onChange?.(choice())
  })
  onLabels(() => labelSelect.value !== OTHER && fillLabels(listed))

  return {
    elements: [
      h('label', {}, `${caption}: label `, labelSelect),
      other,
      h('label', {}, ' version ', versionSelect),
      note,
    ],
    choice,
    pinned,
    say: (node) => fill(note, node),
    show(id, { label, version }) {
      promptId = id
      other.hidden = true
      fillLabels(label)
      return loadVersions(label, version)
    },
  }
}

/** The text a version holds: its template, or its messages each under its role. */
function templateText(value) {
  if (typeof value === 'string') return value
  return (value ?? []).map((m) => `[${m.role}]\n${contentText(m.content)}`).join('\n')
}

const sideName = ({ label, version }) =>
  `${label === null ? 'base' : `label ${label}`} · ${version === null ? 'newest' : `version ${version}`}`

/** Reads A and B, shows the diff of their text and their renders with the page's args, side by side. */
async function compare(a, b, host, latest) {
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
  if (page.prompt !== prompt || !latest()) return
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
            ? renderedView(answer.body.rendered_prompt)
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

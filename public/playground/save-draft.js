// "Save draft" of the versions panel: the edited template written with the
// admin token as a new version of the prompt into a label, typed or picked;
// the base (no label) only after "Save to the base?" is confirmed in the page.
import { confirmation } from './confirm.js'
import { errorView, fill, h } from './dom.js'
import { addLabel, knownLabels, LABEL, LABEL_RULE, onLabels } from './labels.js'
import { page } from './page.js'
import { adminToken, adminTokenInput, writePrompt } from './records.js'

/** The record fields that hold a prompt's template: what saving the draft replaces. */
const TEMPLATE_FIELDS = ['prompt', 'messages']

/**
 * The form that saves page.draft()'s template as a new version in a label
 * (typed, or picked from the known ones); the base (no label) asks "Save to
 * the base?" in the page first.
 */
export function saveDraftForm() {
  const listId = 'versions-labels'
  const labelInput = h('input', { type: 'text', placeholder: 'label (empty: the base)', maxLength: 63 })
  // `list` is a read-only property: only its attribute names the datalist.
  labelInput.setAttribute('list', listId)
  const message = h('input', { type: 'text', placeholder: 'what changed', maxLength: 200 })
  const token = adminTokenInput(h('input', { type: 'password', autocomplete: 'off', placeholder: 'ADMIN_TOKEN' }))
  const note = h('p', { className: 'note', 'data-testid': 'save-draft-note', 'aria-live': 'polite' })
  /** What the draft is built on when the version shown is not the newest. */
  const base = h('p', { className: 'note', 'data-testid': 'save-draft-base', hidden: true })
  const button = h('button', { type: 'submit' }, 'Save draft')
  const confirm = confirmation('Save to the base?', 'Every caller without a label is served it.', button)
  /** A save under way: a second submit meanwhile writes nothing. */
  let saving = false
  const datalist = h('datalist', { id: listId })
  onLabels(() =>
    fill(
      datalist,
      knownLabels().map((l) => h('option', { value: l })),
    ),
  )

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
    if (saving) return
    confirm.hide()
    const label = labelInput.value.trim()
    if (label && !LABEL.test(label)) return (note.textContent = LABEL_RULE)
    if (!label) {
      note.textContent = ''
      return confirm.ask(() => save(null))
    }
    save(label)
  }

  async function save(label) {
    const prompt = page.prompt
    if (!prompt || saving) return
    const draft = draftTemplate()
    if (draft.error) return (note.textContent = draft.error)
    const given = adminToken(token)
    if (!given) return (note.textContent = 'Saving writes a version: give the admin token (ADMIN_TOKEN).')
    note.textContent = 'saving…'
    saving = button.disabled = true
    try {
      await write(prompt, label, draft, given)
    } finally {
      saving = button.disabled = false
    }
  }

  async function write(prompt, label, draft, given) {
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
    addLabel(label)
    // The page now shows what was saved, unless another record was opened meanwhile; the draft is stored now.
    if (page.prompt === prompt) await page.reload({ label, version: null }, { discard: true })
  }

  return {
    elements: h(
      'form',
      { className: 'versions-row', onsubmit: submit },
      h('label', {}, 'Label ', labelInput),
      datalist,
      h('label', {}, 'Version message ', message),
      h('label', {}, 'Token to write (ADMIN_TOKEN) ', token),
      base,
      button,
      confirm.element,
      note,
    ),
    reset() {
      confirm.hide()
    },
    /** The view shows `version` of a label whose versions are `entries` (newest first; null: not known). */
    basedOn(version, entries) {
      const newest = entries?.find((e) => !e.deleted)?.version
      base.hidden = version === null || newest === undefined || version === newest
      base.textContent = base.hidden
        ? ''
        : `The draft is built on version ${version}'s text: saved, it becomes the newest version (after ${newest}).`
    },
  }
}

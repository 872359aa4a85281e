// The template editor: a prompt's `prompt` text, highlighted (code-area.js),
// or its `messages` as role + content blocks (messages-editor.js); the line
// a render's error points at is marked in the template it names.
import { codeArea } from './code-area.js'
import { h } from './dom.js'
import { messagesEditor } from './messages-editor.js'

/** The message a template's name stands for: catalog/parse.ts names them `<id>.messages[<index>]`. */
const MESSAGE_NAME = /\.messages\[(\d+)\]$/

/**
 * An editor in `host`; `onInput()` is called on each edit. `load(prompt,
 * draft)` shows a prompt's template as stored, then `draft` (fields as
 * `fields()` gave them, kept from earlier) over it; `edited()` says whether it was
 * changed since; `fields()` is `{prompt}` or `{messages}` as edited, or
 * `{error}`; `reset()` goes back to the stored one; `markError(body)` marks
 * where a render's error body (its line and column) points, null clears it.
 */
export function promptEditor(host, { onInput }) {
  const text = codeArea({ id: 'template-editor', 'data-testid': 'template-editor', 'aria-label': 'Template' }, onInput)
  const messagesHost = h('div', { className: 'messages-editor', 'data-testid': 'messages-editor' })
  const messages = messagesEditor(messagesHost, onInput)
  host.replaceChildren(text.element)
  /** The prompt as loaded, and its template as `current()` says it: what an edit is measured against. */
  let loaded = { kind: 'text', prompt: '' }
  let stored = ''
  const isMessages = () => loaded.kind === 'messages'
  const current = () => (isMessages() ? JSON.stringify(messages.messages()) : text.textarea.value)

  const editor = {
    load(prompt, draft = null) {
      loaded = prompt
      const show = (fields) => (isMessages() ? messages.set(fields.messages ?? []) : text.set(fields.prompt ?? ''))
      show(prompt)
      host.replaceChildren(isMessages() ? messagesHost : text.element)
      stored = current()
      // A draft of the other kind (the record changed kind since) is not this template's.
      if (draft && (isMessages() ? Array.isArray(draft.messages) : typeof draft.prompt === 'string')) show(draft)
      editor.markError(null)
    },
    edited: () => current() !== stored,
    fields: () => (isMessages() ? { messages: messages.messages() } : { prompt: text.textarea.value }),
    reset: () => editor.load(loaded),
    markError(body) {
      const line = typeof body?.line === 'number' ? body.line : null
      if (!isMessages()) return text.markLine(line)
      const index = MESSAGE_NAME.exec(body?.template ?? '')
      messages.markLine(line === null || !index ? null : Number(index[1]), line)
    },
  }
  return editor
}

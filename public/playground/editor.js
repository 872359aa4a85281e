// The template editor: a prompt's `prompt` text, or its `messages`. (Issue 35's
// editor replaces this plain textarea: highlighting, brace hints, the error's
// line, messages as role + content blocks; the interface stays.)
import { h } from './dom.js'

/**
 * An editor in `host`; `onInput()` is called on each edit. `load(prompt)`
 * shows a prompt's template as stored; `edited()` says whether it was
 * changed since; `fields()` is `{prompt}` or `{messages}` as edited, or
 * `{error}`; `reset()` goes back to the stored one; `markError(body)` marks
 * where a render's error body (its line and column) points, null clears it.
 */
export function promptEditor(host, { onInput }) {
  const textarea = h('textarea', {
    id: 'template-editor',
    'data-testid': 'template-editor',
    spellcheck: false,
    rows: 8,
    'aria-label': 'Template',
    oninput: () => onInput(),
  })
  host.replaceChildren(textarea)
  let stored = ''
  let kind = 'text'
  return {
    load(prompt) {
      kind = prompt.kind === 'messages' ? 'messages' : 'text'
      stored = kind === 'messages' ? JSON.stringify(prompt.messages, null, 2) : prompt.prompt
      textarea.value = stored
    },
    edited: () => textarea.value !== stored,
    fields() {
      if (kind === 'text') return { prompt: textarea.value }
      try {
        return { messages: JSON.parse(textarea.value) }
      } catch (e) {
        return { error: `the messages are not JSON: ${e.message}` }
      }
    },
    reset() {
      textarea.value = stored
    },
    markError() {},
    focus: () => textarea.focus(),
  }
}

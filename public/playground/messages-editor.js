// A `messages` prompt edited as what it is: a list of messages, each a role
// and a content template (highlighted, as a text prompt is), which can be
// added, removed and moved up or down.
import { codeArea } from './code-area.js'
import { h } from './dom.js'

/** jsonschema/prompt.json's message roles. */
const ROLES = ['system', 'user', 'assistant']

/**
 * The messages editor in `host`; `onInput()` after each change. Returns
 * `{set(messages), messages(), markLine(index | null, line), focus()}`.
 */
export function messagesEditor(host, onInput) {
  /** One entry a message: `{role, area}` (its select and its code area). */
  let blocks = []
  const list = h('ol', { className: 'message-blocks' })
  const add = h(
    'button',
    { type: 'button', 'data-testid': 'message-add', onclick: () => change(() => insert('user', '')) },
    'Add a message',
  )
  host.replaceChildren(list, add)

  function insert(role, content) {
    const role_ = h(
      'select',
      { 'data-testid': 'message-role', onchange: () => onInput() },
      ROLES.map((r) => h('option', { value: r, selected: r === role }, r)),
    )
    const area = codeArea({ 'data-testid': 'message-content' }, onInput)
    area.set(content)
    blocks.push({ role: role_, area })
  }

  /** Applies `edit` to the blocks, shows them again, and says the messages changed. */
  function change(edit) {
    edit()
    show()
    onInput()
  }

  function move(i, by) {
    const j = i + by
    if (j < 0 || j >= blocks.length) return
    ;[blocks[i], blocks[j]] = [blocks[j], blocks[i]]
  }

  function show() {
    const last = blocks.length - 1
    list.replaceChildren(
      ...blocks.map((block, i) => {
        const n = i + 1
        block.role.setAttribute('aria-label', `Role of message ${n}`)
        block.area.textarea.setAttribute('aria-label', `Content of message ${n}`)
        const button = (label, text, disabled, edit) =>
          h(
            'button',
            {
              type: 'button',
              'aria-label': `${label} message ${n}`,
              title: `${label} message ${n}`,
              disabled,
              onclick: () => change(edit),
            },
            text,
          )
        return h(
          'li',
          { className: 'message-block' },
          h(
            'div',
            { className: 'message-bar' },
            block.role,
            button('Move up', '↑', i === 0, () => move(i, -1)),
            button('Move down', '↓', i === last, () => move(i, 1)),
            button('Remove', '✕', false, () => blocks.splice(i, 1)),
          ),
          block.area.element,
        )
      }),
    )
  }

  return {
    set(messages) {
      blocks = []
      for (const m of messages) insert(m.role, m.content)
      show()
    },
    messages: () => blocks.map((b) => ({ role: b.role.value, content: b.area.textarea.value })),
    /** Marks `line` of message `index` (null: no message) and clears every other mark. */
    markLine(index, line) {
      blocks.forEach((b, i) => b.area.markLine(i === index ? line : null))
    },
    focus: () => (blocks[0]?.area.textarea ?? add).focus(),
  }
}

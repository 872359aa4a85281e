// A `messages` prompt edited as what it is: a list of messages, each a role
// and a content template (highlighted, as a text prompt is), which can be
// added, removed and moved up or down.
import { codeArea } from './code-area.js'
import { h } from './dom.js'

/** jsonschema/prompt.json's message roles. */
const ROLES = ['system', 'user', 'assistant']

/**
 * The messages editor in `host`; `onInput()` after each change. Returns
 * `{set(messages), messages(), markLine(index | null, line)}`.
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

  /** Applies `edit` to the blocks, shows them again (then runs what `edit` answers: where the focus goes), and says the messages changed. */
  function change(edit) {
    const then = edit()
    show()
    if (typeof then === 'function') then()
    onInput()
  }

  /** Moves block `i` by one; the focus stays on the moved block's button of that move (or its other one at an end). */
  function move(i, by, label) {
    const j = i + by
    if (j < 0 || j >= blocks.length) return
    ;[blocks[i], blocks[j]] = [blocks[j], blocks[i]]
    return () => focusButton(j, label) ?? focusButton(j, label === 'Move up' ? 'Move down' : 'Move up')
  }

  /** Removes block `i`; the focus goes to the remove button of the block now there, else the last one's, else Add. */
  function remove(i) {
    blocks.splice(i, 1)
    return () => focusButton(Math.min(i, blocks.length - 1), 'Remove') ?? add.focus()
  }

  /** Focuses block `i`'s enabled button `label`; null when there is none. */
  function focusButton(i, label) {
    const button = list.children[i]?.querySelector(`button[data-action="${label}"]:not([disabled])`)
    return button ? (button.focus(), true) : null
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
              'data-action': label,
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
            button('Move up', '↑', i === 0, () => move(i, -1, 'Move up')),
            button('Move down', '↓', i === last, () => move(i, 1, 'Move down')),
            button('Remove', '✕', false, () => remove(i)),
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
  }
}

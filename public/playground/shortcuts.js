// Keyboard shortcuts: Ctrl/Cmd+Enter renders, Ctrl/Cmd+Shift+Enter sends the
// chat, Ctrl/Cmd+K goes to the prompt filter, Alt+Up/Down selects the
// previous/next prompt of the list, `?` (outside a text field) lists them.
import { $, fill, h } from './dom.js'
import { page } from './page.js'

/** Each shortcut as the `?` dialog lists it. */
const SHORTCUTS = [
  ['Ctrl/⌘ + Enter', 'Render now'],
  ['Ctrl/⌘ + Shift + Enter', 'Send the chat'],
  ['Ctrl/⌘ + K', 'Filter the prompts'],
  ['Enter in the filter', 'Open the first prompt listed'],
  ['Alt + ↑ / ↓', 'Previous / next prompt'],
  ['?', 'This list'],
]

const typing = (el) =>
  el instanceof HTMLElement && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName))

/** The prompt buttons of the list, in order. */
const items = () => [...document.querySelectorAll('[data-testid="prompt-item"]')]

/** Listens for the shortcuts; `select(id)` opens a prompt. */
export function shortcuts(select) {
  const dialog = $('shortcuts')
  fill(
    $('shortcuts-list'),
    SHORTCUTS.map(([keys, what]) => h('tr', {}, h('th', { scope: 'row' }, h('kbd', {}, keys)), h('td', {}, what))),
  )
  $('shortcuts-button').addEventListener('click', () => dialog.showModal())
  $('shortcuts-close').addEventListener('click', () => dialog.close())
  document.addEventListener('keydown', (event) => {
    const mod = event.ctrlKey || event.metaKey
    if (mod && event.key === 'Enter') {
      event.preventDefault()
      if (event.shiftKey) document.querySelector('[data-testid="chat-button"]:not([disabled])')?.click()
      else page.render()
    } else if (mod && event.key.toLowerCase() === 'k') {
      event.preventDefault()
      $('filter').focus()
      $('filter').select()
    } else if (event.altKey && (event.key === 'ArrowUp' || event.key === 'ArrowDown')) {
      const list = items()
      const at = list.findIndex((item) => item.dataset.id === page.prompt?.id)
      const next = list[at + (event.key === 'ArrowUp' ? -1 : 1)] ?? (at < 0 ? list[0] : undefined)
      if (!next) return
      event.preventDefault()
      next.focus()
      select(next.dataset.id)
    } else if (event.key === '?' && !mod && !typing(event.target)) {
      event.preventDefault()
      if (dialog.open) dialog.close()
      else dialog.showModal()
    }
  })
  $('filter').addEventListener('keydown', (event) => {
    if (event.key !== 'Enter') return
    const first = items()[0]
    if (first) select(first.dataset.id)
  })
}

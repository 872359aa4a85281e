// An inline confirmation, in the page rather than window.confirm (which
// blocks the page, and which a browser may suppress): a question, what
// confirming does, Confirm and Cancel. Escape cancels; focus goes back to
// the control that asked. The page's writes to the base ask through it.
import { h } from './dom.js'

/**
 * A confirmation asking `question` (its `detail` said after it); `returnTo`
 * gets the focus back on Cancel. `ask(onConfirm)` shows it, `hide()` hides
 * it, `element` is where it sits.
 */
export function confirmation(question, detail, returnTo) {
  let confirmed = null
  const cancel = () => {
    element.hidden = true
    returnTo.focus()
  }
  const element = h(
    'div',
    {
      className: 'confirm',
      role: 'alertdialog',
      'aria-label': question,
      hidden: true,
      onkeydown: (event) => event.key === 'Escape' && (event.preventDefault(), cancel()),
    },
    h('strong', {}, `${question} `),
    detail,
    h(
      'span',
      {},
      h('button', { type: 'button', onclick: () => ((element.hidden = true), confirmed?.()) }, 'Confirm'),
      ' ',
      h('button', { type: 'button', onclick: cancel }, 'Cancel'),
    ),
  )
  return {
    element,
    ask(onConfirm) {
      confirmed = onConfirm
      element.hidden = false
      element.querySelector('button').focus()
    },
    hide() {
      element.hidden = true
    },
  }
}

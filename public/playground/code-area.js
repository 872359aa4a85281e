// One template's text area, highlighted: a `<pre aria-hidden>` of spans
// under a textarea whose text is transparent (its caret and selection stay
// visible). Both sit in one grid cell, the pre sizing it, so they wrap and
// scroll as one. The pre has a block per line, to mark an error's line, and
// marks the bracket pair at the caret.
import { h } from './dom.js'
import { matchAt, tokenize } from './highlight.js'

/**
 * A highlighted text area; `props` are the textarea's (data-testid,
 * aria-label, ...), `onInput()` is called on each edit. Returns `{element,
 * textarea, set(text), markLine(line | null)}`.
 */
export function codeArea(props, onInput) {
  const pre = h('pre', { className: 'code-view', 'aria-hidden': 'true' })
  const textarea = h('textarea', {
    ...props,
    className: 'code-input',
    spellcheck: false,
    autocomplete: 'off',
    wrap: 'soft',
    rows: 1,
  })
  const element = h('div', { className: 'code-area' }, pre, textarea)
  let tokens = null
  /** The token spans of brackets (delimiters, parens) by token index: where the caret's pair is marked. */
  let brackets = new Map()
  let lines = []
  /** The line (from 1) marked as an error's, or null. */
  let marked = null
  let frame = 0

  function paint() {
    frame = 0
    const text = textarea.value
    tokens = tokenize(text)
    element.classList.toggle('plain', tokens === null)
    brackets = new Map()
    let line = h('span', { className: 'line' })
    const out = [line]
    for (const [i, token] of (tokens ?? [{ type: 'text', start: 0, end: text.length }]).entries()) {
      const parts = text.slice(token.start, token.end).split('\n')
      for (const [p, part] of parts.entries()) {
        if (p > 0) out.push((line = h('span', { className: 'line' })))
        if (part === '') continue
        const span =
          token.type === 'text' || token.type === 'space' ? part : h('span', { className: `t-${token.type}` }, part)
        if (token.type === 'delim' || token.type === 'paren') brackets.set(i, span)
        line.append(span)
      }
    }
    lines = out
    pre.replaceChildren(...out)
    showLine()
    showPair()
  }

  function showLine() {
    lines.forEach((el, i) => el.classList.toggle('error-line', i + 1 === marked))
    if (marked === null) textarea.removeAttribute('aria-invalid')
    else textarea.setAttribute('aria-invalid', 'true')
  }

  function showPair() {
    for (const span of pre.querySelectorAll('.match, .unmatched')) span.classList.remove('match', 'unmatched')
    const caret = textarea.selectionStart
    if (!tokens || document.activeElement !== textarea || caret !== textarea.selectionEnd) return
    const pair = matchAt(tokens, textarea.value, caret)
    if (!pair) return
    const both = pair.open !== null && pair.close !== null
    for (const i of [pair.open, pair.close])
      if (i !== null) brackets.get(i)?.classList.add(both ? 'match' : 'unmatched')
  }

  // At most one paint a frame: typing fast into a long text paints once for all the keys of that frame.
  const schedule = () => (frame ||= requestAnimationFrame(paint))
  textarea.addEventListener('input', () => {
    schedule()
    onInput()
  })
  // The caret moves on keys and clicks (the document's selectionchange would outlive a removed area).
  for (const event of ['keyup', 'mouseup', 'focus', 'blur']) textarea.addEventListener(event, showPair)

  return {
    element,
    textarea,
    set(text) {
      textarea.value = text
      paint()
    },
    markLine(line) {
      marked = line
      showLine()
    },
  }
}

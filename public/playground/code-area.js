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
  /** Where each bracket token (delimiter, paren) is shown: token index -> [line, index among the line's spans]. */
  let brackets = new Map()
  /** The line elements shown, and what each shows (its parts' types and texts as one string). */
  let lines = []
  let shown = []
  /** The line (from 1) marked as an error's, or null. */
  let marked = null
  let frame = 0

  // The text is tokenized whole (a state reaches across lines) but only the lines that differ from those
  // shown are built again: an edit in a long template replaces a line's elements, not the whole view.
  function paint() {
    frame = 0
    const text = textarea.value
    tokens = tokenize(text)
    element.classList.toggle('plain', tokens === null)
    brackets = new Map()
    /** Per line: its parts `[type, text]` and how many of them are spans. */
    const parts = [[]]
    const spans = [0]
    for (const [i, token] of (tokens ?? [{ type: 'text', start: 0, end: text.length }]).entries()) {
      const plain = token.type === 'text' || token.type === 'space'
      for (const [p, piece] of text.slice(token.start, token.end).split('\n').entries()) {
        if (p > 0) {
          parts.push([])
          spans.push(0)
        }
        if (piece === '') continue
        const n = parts.length - 1
        if (token.type === 'delim' || token.type === 'paren') brackets.set(i, [n, spans[n]])
        if (!plain) spans[n]++
        parts[n].push([plain ? '' : token.type, piece])
      }
    }
    const keys = parts.map((line) => line.map(([type, piece]) => `${type}\u0001${piece}`).join('\u0002'))
    let head = 0
    while (head < keys.length && head < shown.length && keys[head] === shown[head]) head++
    let tail = 0
    const most = Math.min(keys.length, shown.length) - head
    while (tail < most && keys.at(-1 - tail) === shown.at(-1 - tail)) tail++
    const fresh = parts.slice(head, parts.length - tail).map(lineView)
    for (const old of lines.splice(head, lines.length - tail - head, ...fresh)) old.remove()
    const next = lines[head + fresh.length] ?? null
    for (const line of fresh) pre.insertBefore(line, next)
    shown = keys
    showLine()
    showPair()
  }

  const lineView = (line) =>
    h(
      'span',
      { className: 'line' },
      line.map(([type, piece]) => (type ? h('span', { className: `t-${type}` }, piece) : piece)),
    )

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
    for (const i of [pair.open, pair.close]) {
      const [line, n] = brackets.get(i) ?? []
      if (i !== null) lines[line]?.children[n]?.classList.add(both ? 'match' : 'unmatched')
    }
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

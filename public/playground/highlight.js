// A small tokenizer of Go text/template syntax for the editor's highlighting:
// state functions as lib/template's lexer has them (text, then inside an
// action, ...), but forgiving: it never fails, and text it cannot place is an
// `error` token. Pure (no DOM), so it runs in Node's tests too.

/**
 * Past this many characters nothing is highlighted: the editor stays
 * responsive on any text. Measured in Chromium here, a keystroke near 200 KB
 * cost about 0.3 s of highlighting, which grows with the text: 64 KB costs a third of it.
 */
export const MAX_HIGHLIGHT = 64 * 1024

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue'])
const CONSTANTS = new Set(['true', 'false', 'nil'])
const IDENTIFIER = /[\p{L}\p{N}_]/u
const SPACE = /[ \t\r\n]/
// Runs matched at a position (sticky): one regular expression call a token, not one a character.
const SPACES = /[ \t\r\n]+/y
const IDENTIFIERS = /[\p{L}\p{N}_]*/uy
// Go's numbers: a sign, digits of any base with `_`, a fraction, an exponent with its own sign, an `i`.
const NUMBER = /[+-]?(?:[0-9a-zA-Z_.]|(?<=[eEpP])[+-])+/y

/** The end of the run `sticky` matches at `pos`. */
function runEnd(sticky, input, pos) {
  sticky.lastIndex = pos
  sticky.test(input)
  return sticky.lastIndex || pos
}

/**
 * The tokens of `text`, `{type, start, end}` each, covering it end to end
 * in order; null when it is longer than MAX_HIGHLIGHT. Types: text, delim
 * (`{{`, `{{-`, `}}`, `-}}`), comment (a whole `{{/* *\/}}`), keyword,
 * variable (`$x`), field (`.a`), string, number, constant (true false nil),
 * function (any other identifier), pipe, paren, operator (`:=` `=` `,`),
 * space (inside an action), error.
 */
export function tokenize(text) {
  if (text.length > MAX_HIGHLIGHT) return null
  const l = {
    input: text,
    start: 0,
    pos: 0,
    tokens: [],
    emit(type) {
      if (this.pos > this.start) this.tokens.push({ type, start: this.start, end: this.pos })
      this.start = this.pos
    },
  }
  // Each state consumes at least one character or ends: at most text.length + 1 steps.
  for (let state = lexText; state;) state = state(l)
  return l.tokens
}

function lexText(l) {
  const at = l.input.indexOf('{{', l.pos)
  l.pos = at < 0 ? l.input.length : at
  l.emit('text')
  return at < 0 ? null : lexLeftDelim
}

function lexLeftDelim(l) {
  l.pos += 2
  // `{{- `: a trim marker is a dash and a space.
  const trim = l.input[l.pos] === '-' && SPACE.test(l.input[l.pos + 1] ?? '')
  if (trim) l.pos++
  if (l.input.startsWith('/*', l.pos + (trim ? 1 : 0))) return lexComment
  l.emit('delim')
  return lexInsideAction
}

// A comment runs to its `*/` and the action's end; unclosed, to the end of the text.
function lexComment(l) {
  const close = l.input.indexOf('*/', l.pos)
  if (close < 0) {
    l.pos = l.input.length
    l.emit('comment')
    return null
  }
  const end = /^\*\/( -)?\}\}/.exec(l.input.slice(close, close + 6))
  l.pos = close + (end ? end[0].length : 2)
  l.emit('comment')
  return end ? lexText : lexInsideAction
}

function lexInsideAction(l) {
  const { input } = l
  if (l.pos >= input.length) return null
  const c = input[l.pos]
  if (SPACE.test(c)) {
    l.pos = runEnd(SPACES, input, l.pos)
    l.emit('space')
    return lexInsideAction
  }
  const trimmed = c === '-' && SPACE.test(input[l.pos - 1] ?? '') && input.startsWith('}}', l.pos + 1)
  if (trimmed || input.startsWith('}}', l.pos)) {
    l.pos += trimmed ? 3 : 2
    l.emit('delim')
    return lexText
  }
  if (c === '"' || c === "'") return quoted(l, c)
  if (c === '`') {
    const close = input.indexOf('`', l.pos + 1)
    l.pos = close < 0 ? input.length : close + 1
    l.emit(close < 0 ? 'error' : 'string')
    return lexInsideAction
  }
  if (c === '$') return word(l, 1, 'variable')
  if (c === '.' && !/[0-9]/.test(input[l.pos + 1] ?? '')) return word(l, 1, 'field')
  if (/[0-9.]/.test(c) || (/[+-]/.test(c) && /[0-9.]/.test(input[l.pos + 1] ?? ''))) {
    l.pos = runEnd(NUMBER, input, l.pos)
    l.emit('number')
    return lexInsideAction
  }
  if (IDENTIFIER.test(c)) {
    word(l, 0, null)
    const name = input.slice(l.start, l.pos)
    l.emit(KEYWORDS.has(name) ? 'keyword' : CONSTANTS.has(name) ? 'constant' : 'function')
    return lexInsideAction
  }
  const operator = input.startsWith(':=', l.pos) ? 2 : c === '=' || c === ',' ? 1 : 0
  l.pos += operator || 1
  l.emit(operator ? 'operator' : c === '|' ? 'pipe' : c === '(' || c === ')' ? 'paren' : 'error')
  return lexInsideAction
}

/** `skip` characters, then an identifier's; emitted as `type` unless it is null (the caller names it). */
function word(l, skip, type) {
  l.pos = runEnd(IDENTIFIERS, l.input, l.pos + skip)
  if (type) l.emit(type)
  return lexInsideAction
}

// A quoted string or character: to its closing quote, past backslash escapes; a newline or the end leaves it unclosed.
function quoted(l, quote) {
  const { input } = l
  l.pos++
  while (l.pos < input.length && input[l.pos] !== quote && input[l.pos] !== '\n') {
    l.pos += input[l.pos] === '\\' ? 2 : 1
  }
  const closed = input[l.pos] === quote
  if (closed) l.pos++
  l.pos = Math.min(l.pos, input.length)
  l.emit(closed ? 'string' : 'error')
  return lexInsideAction
}

/**
 * The bracket pair at `caret` in `tokens` (tokenize's): the `{{`/`}}` or
 * `(`/`)` token the caret touches (the one before it first), and the one
 * that matches it. `{open, close}` token indexes; one of them null when the
 * match is missing; null when the caret touches no bracket.
 */
export function matchAt(tokens, text, caret) {
  const touching = (i) => tokens[i].type === 'delim' || tokens[i].type === 'paren'
  let at = tokens.findIndex((t) => t.start < caret && caret <= t.end)
  if (at < 0 || !touching(at)) at = tokens.findIndex((t) => t.start === caret)
  if (at < 0 || !touching(at)) return null
  const opens = (i) => text[tokens[i].start] === '{' || text[tokens[i].start] === '('
  const delim = tokens[at].type === 'delim'
  const step = opens(at) ? 1 : -1
  let depth = 0
  for (let i = at + step; i >= 0 && i < tokens.length; i += step) {
    const t = tokens[i]
    // Actions do not nest: a paren's match is inside its action, a delimiter's is the next one the other way.
    if (t.type === 'delim' && (delim ? opens(i) !== opens(at) : true)) {
      if (!delim) break
      return step > 0 ? { open: at, close: i } : { open: i, close: at }
    }
    if (delim || t.type !== 'paren') continue
    if (opens(i) === opens(at)) depth++
    else if (depth-- === 0) return step > 0 ? { open: at, close: i } : { open: i, close: at }
  }
  return step > 0 ? { open: at, close: null } : { open: null, close: at }
}

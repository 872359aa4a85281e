// Small DOM helpers. Text goes in as text nodes or textContent, never as HTML.

/** The element of an id. */
export const $ = (id) => document.getElementById(id)

/**
 * An element: `props` set as properties when the element has them (value,
 * checked, type, ...), else as attributes (data-*, aria-*); `on<event>`
 * props become listeners; children are nodes or strings (as text).
 */
export function h(tag, props = {}, ...children) {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue
    if (name.startsWith('on')) el.addEventListener(name.slice(2), value)
    else if (name in el && !name.includes('-')) el[name] = value
    else el.setAttribute(name, value === true ? '' : String(value))
  }
  append(el, children)
  return el
}

/** Replaces an element's children with these. */
export function fill(el, ...children) {
  el.replaceChildren()
  append(el, children)
  return el
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : String(child))
  }
}

/** A service error (the error body's code and message, and where in a template it is) as an alert. */
export function errorView(error) {
  const where = []
  if (error.line !== undefined) where.push(`line ${error.line}`)
  if (error.column !== undefined) where.push(`column ${error.column}`)
  return h(
    'div',
    { className: 'error', role: 'alert' },
    h('strong', {}, error.code ?? 'ERROR'),
    ' ',
    h('span', {}, error.message ?? ''),
    where.length > 0 || error.template
      ? h('div', { className: 'where' }, [where.join(', '), error.template ? ` in template ${error.template}` : ''])
      : null,
  )
}

/** A message's content as text: a string as is, structured content as its JSON. */
export const contentText = (content) => (typeof content === 'string' ? content : JSON.stringify(content, null, 2))

/** A rendered prompt (a text, or messages each under its role) as elements. */
export function renderedView(rendered) {
  if (typeof rendered === 'string') return h('pre', { className: 'text' }, rendered)
  return (rendered ?? []).map((m) =>
    h(
      'div',
      { className: 'message' },
      h('div', { className: 'role' }, m.role),
      h('pre', { className: 'text' }, contentText(m.content)),
    ),
  )
}

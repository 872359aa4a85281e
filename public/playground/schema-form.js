// A form for a prompt's parameters, made from their JSON Schema: a string,
// number, integer, boolean or enum property gets an input; anything else is
// edited in the args JSON, which stays the source of truth (the form reads
// from it and writes into it).
import { h } from './dom.js'

/** The args a schema's defaults make. */
export function defaultArgs(schema) {
  const args = {}
  for (const [name, property] of Object.entries(schema?.properties ?? {})) {
    if (property && property.default !== undefined) args[name] = property.default
  }
  return args
}

/**
 * The form's elements, and `show(args)`, which sets its inputs from args.
 * `edit(change)` is called with a function that changes the args object.
 */
export function schemaForm(schema, edit) {
  const required = new Set(schema?.required ?? [])
  const fields = []
  const rows = Object.entries(schema?.properties ?? {}).map(([name, property]) => {
    const field = fieldFor(name, property ?? {}, edit)
    if (field.show) fields.push(field)
    return h(
      'div',
      { className: 'field' },
      h('label', { htmlFor: `param-${name}` }, h('code', {}, name), required.has(name) ? ' (required)' : ''),
      field.input,
      property?.description ? h('small', {}, property.description) : null,
      property?.default !== undefined ? h('small', {}, `default: ${JSON.stringify(property.default)}`) : null,
    )
  })
  const elements = rows.length > 0 ? rows : [h('p', { className: 'note' }, 'No parameters.')]
  return { elements, show: (args) => fields.forEach((field) => field.show(args)) }
}

function fieldFor(name, property, edit) {
  const id = `param-${name}`
  const set = (value) =>
    edit((args) => {
      if (value === undefined) delete args[name]
      else args[name] = value
    })
  if (Array.isArray(property.enum)) {
    const input = h(
      'select',
      { id, onchange: () => set(input.value === '' ? undefined : property.enum[Number(input.value)]) },
      h('option', { value: '' }, '(unset)'),
      property.enum.map((value, i) => h('option', { value: String(i) }, JSON.stringify(value))),
    )
    const show = (args) => {
      const i = property.enum.findIndex((value) => JSON.stringify(value) === JSON.stringify(args[name]))
      input.value = i < 0 ? '' : String(i)
    }
    return { input, show }
  }
  switch (property.type) {
    case 'string': {
      const multiline = property.format !== 'uri' && !property.maxLength
      const input = h(multiline ? 'textarea' : 'input', { id, oninput: () => set(input.value) })
      return { input, show: (args) => (input.value = typeof args[name] === 'string' ? args[name] : '') }
    }
    case 'number':
    case 'integer': {
      const input = h('input', {
        id,
        type: 'number',
        step: property.type === 'integer' ? '1' : 'any',
        oninput: () => set(input.value === '' ? undefined : Number(input.value)),
      })
      return { input, show: (args) => (input.value = typeof args[name] === 'number' ? String(args[name]) : '') }
    }
    case 'boolean': {
      const input = h('input', { id, type: 'checkbox', onchange: () => set(input.checked) })
      return { input, show: (args) => (input.checked = args[name] === true) }
    }
    default:
      return { input: h('p', { id, className: 'note' }, 'Edit this one in the args JSON below.') }
  }
}

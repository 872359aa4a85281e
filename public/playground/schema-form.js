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

/** A value of a property's type, for a parameter with neither a default nor a test case's value. */
function placeholder(name, property) {
  if (Array.isArray(property.examples) && property.examples.length > 0) return property.examples[0]
  if (Array.isArray(property.enum) && property.enum.length > 0) return property.enum[0]
  if (property.const !== undefined) return property.const
  const type = Array.isArray(property.type) ? property.type[0] : property.type
  switch (type) {
    case 'number':
    case 'integer':
      return 1
    case 'boolean':
      return false
    case 'array':
      return []
    case 'object':
      return {}
    default:
      return `example ${name}`
  }
}

/**
 * Args a prompt renders with on open, and where they came from: its
 * defaults when they cover every required parameter; else the first test
 * case's args over the defaults; else placeholders for the required
 * parameters still missing, named in `examples` (name -> placeholder) so the
 * form can mark them as made up.
 */
export function exampleArgs(prompt) {
  const schema = prompt.parameters
  const args = defaultArgs(schema)
  const required = (schema?.required ?? []).filter((name) => typeof name === 'string')
  const missing = () => required.filter((name) => args[name] === undefined)
  if (missing().length === 0) return { args, from: 'defaults', examples: new Map() }
  const testArgs = prompt.tests?.[0]?.args
  if (testArgs && typeof testArgs === 'object' && !Array.isArray(testArgs)) {
    Object.assign(args, testArgs)
    if (missing().length === 0) return { args, from: `test case "${prompt.tests[0].name}"`, examples: new Map() }
  }
  const examples = new Map()
  for (const name of missing()) {
    args[name] = placeholder(name, schema?.properties?.[name] ?? {})
    examples.set(name, args[name])
  }
  return { args, from: 'placeholders', examples }
}

/**
 * The form's elements, and `show(args)`, which sets its inputs from args.
 * `edit(change)` is called with a function that changes the args object.
 * `examples` (name -> placeholder): a field still holding its placeholder
 * shows an "example" badge.
 */
export function schemaForm(schema, edit, examples = new Map()) {
  const required = new Set(schema?.required ?? [])
  const fields = []
  const rows = Object.entries(schema?.properties ?? {}).map(([name, property]) => {
    const field = fieldFor(name, property ?? {}, edit)
    const badge = h('span', { className: 'badge', title: 'A made-up value: type a real one' }, 'example')
    badge.hidden = true
    fields.push({
      show(args) {
        field.show?.(args)
        badge.hidden = !examples.has(name) || JSON.stringify(args[name]) !== JSON.stringify(examples.get(name))
      },
    })
    // A parameter edited in the args JSON has no input here: its name is a caption, not a label for a paragraph.
    return h(
      'div',
      { className: 'field' },
      h(
        field.show ? 'label' : 'span',
        { htmlFor: field.show ? `param-${name}` : null, className: field.show ? null : 'field-name' },
        h('code', { className: 'id' }, name),
        required.has(name) ? ' (required) ' : ' ',
        badge,
      ),
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
      return { input: h('p', { className: 'note' }, 'Edit this one in the args JSON below.') }
  }
}

// lib/template/README.md documents every helper with an example and its
// output, in one table: this renders each example and requires that output,
// so the documentation cannot drift from the engine.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { HELPER_NAMES, parse } from '../../../lib/template'

const readme = readFileSync(new URL('../../../lib/template/README.md', import.meta.url), 'utf8')

/** The contents of a Markdown cell's code spans, by CommonMark's rules (a run of backticks closes only its own length). */
function codeSpans(cell: string): string[] {
  const spans: string[] = []
  const runs = /`+/g
  for (let open = runs.exec(cell); open !== null; open = runs.exec(cell)) {
    let close = runs.exec(cell)
    while (close !== null && close[0].length !== open[0].length) close = runs.exec(cell)
    if (close === null) break
    const content = cell.slice(open.index + open[0].length, close.index)
    spans.push(/^ .*[^ ].* $/s.test(content) ? content.slice(1, -1) : content)
  }
  return spans
}

interface Example {
  helper: string
  template: string
  data: unknown
  output: string
}

/** The rows of the table under "## Helper functions": helper, signature, what it gives, example (and its data), output. */
function examples(): Example[] {
  const section = readme.slice(readme.indexOf('## Helper functions'), readme.indexOf('**Operands.**'))
  return section
    .split('\n')
    .filter((line) => /^\| `\w+`/.test(line))
    .map((line) => {
      const cells = line
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((cell) => cell.replaceAll('\\|', '|'))
      const [name, , , example, output] = cells.map(codeSpans)
      const [template, data] = example as string[]
      return {
        helper: (name as string[])[0] as string,
        template: template as string,
        data: data === undefined ? null : JSON.parse(data),
        output: ((output as string[])[0] as string).replaceAll('\\n', '\n'),
      }
    })
}

describe('the README’s table of helpers', () => {
  const table = examples()

  it('has one row for each helper', () => {
    expect([...table.map((e) => e.helper)].sort()).toEqual(HELPER_NAMES)
  })

  it.each(table)('$helper: $template renders as documented', ({ helper, template, data, output }) => {
    expect(template).toContain(helper)
    expect(parse('readme', template, { functions: [], helpers: true }).render(data)).toBe(output)
  })
})

// `validate` (checkRecords) warns of a tool whose function name is also a
// function every template has: a helper of the template engine, or the
// service's dict. The tool wins in templates, which is rarely what they mean.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { checkRecords } from '../../lib/catalog'
import type { RecordFile } from '../../lib/catalog'
import { HELPER_NAMES } from '../../lib/template'

const example = JSON.parse(
  readFileSync(new URL('../../examples/tools/translate/zh_en.json', import.meta.url), 'utf8'),
) as {
  module: string
  name: string
}

/** A valid tool record published as shenma:tools:{module}:{name}. */
function tool(module: string, name: string): RecordFile {
  return {
    file: `tools/${module}/${name}.json`,
    kind: 'tools',
    key: `shenma:tools:${module}:${name}`,
    value: { ...example, module, name },
  }
}

/** A tool with one key segment: its function name is the segment. */
function bare(name: string): RecordFile {
  return {
    file: `tools/${name}.json`,
    kind: 'tools',
    key: `shenma:tools:${name}`,
    value: { ...example, module: 'm', name },
  }
}

const clashes = async (records: RecordFile[]) =>
  (await checkRecords(records)).warnings.filter((w) => w.message.includes('get this tool instead'))

describe('a tool named like a function every template has', () => {
  it.each(HELPER_NAMES)('warns that the tool %s wins over the helper', async (name) => {
    expect(await clashes([bare(name)])).toEqual([
      {
        file: `tools/${name}.json`,
        message: `its function name '${name}' is also the template helper ${name}: templates calling ${name} get this tool instead`,
      },
    ])
  })

  it("warns that a tool dict wins over the service's dict", async () => {
    expect(await clashes([bare('dict')])).toEqual([
      {
        file: 'tools/dict.json',
        message:
          "its function name 'dict' is also the service's function dict: templates calling dict get this tool instead",
      },
    ])
  })

  it('says nothing of other names, nor of a name that only contains a helper’s', async () => {
    expect(
      await clashes([tool('translate', 'zh_en'), tool('text', 'upper'), bare('uppercase'), bare('Upper')]),
    ).toEqual([])
    expect(await checkRecords([tool('translate', 'zh_en')])).toEqual({ errors: [], warnings: [] })
  })
})

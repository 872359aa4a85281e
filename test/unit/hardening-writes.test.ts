// Issue 27, row 8: `validate` refuses a tool whose name or module holds a
// ':', which would store it at another tool's key.
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { main } from '../../cli/index'
import { folder } from '../support/folder'

const tool = (module: string, name: string) =>
  JSON.stringify({ name, module, type: 'restful', description: 'd', parameters: {}, restful: { url: '/x' } })

describe("validate, a ':' in a tool's name or module", () => {
  it('is an error naming the field, and the run fails', async () => {
    const root = await folder({
      'tools/translate/zh/en.json': tool('translate', 'zh:en'),
      'tools/translate/zh/fr.json': tool('translate:zh', 'fr'),
      'tools/translate/zh_de.json': tool('translate', 'zh_de'),
    })
    const err: string[] = []
    const code = await main(['validate', root], { out: () => {}, err: (l) => err.push(l), env: {} })
    expect(code).toBe(1)
    const file = (path: string) => join(root, 'tools/translate', path)
    expect(err.filter((line) => line.startsWith('error:'))).toEqual([
      `error: ${file('zh/en.json')}: $.name: must match pattern "^[^:]+$"`,
      `error: ${file('zh/fr.json')}: $.module: must match pattern "^[^:]+$"`,
    ])
  })
})

// One module reads the Worker's settings (lib/settings.ts); the routes get them, and their store, from the request's
// context (lib/http/context.ts); every setting it knows is documented, and every setting documented is one it knows.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ServiceError } from '../../lib/errors'
import { ERROR_STATUS } from '../../lib/http'
import { SETTING_NAMES, settingsFrom } from '../../lib/settings'

const root = resolve(import.meta.dirname, '../..')

function sources(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(root, join(e.parentPath, e.name)))
}

/** Each `file:line` of `files` whose text matches `pattern`. */
function matching(files: readonly string[], pattern: RegExp): string[] {
  return files.flatMap((file) =>
    readFileSync(join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, i) => (pattern.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
  )
}

/** README.md and docs/*.md: where the configuration is documented. */
function docsText(): string[] {
  const docs = existsSync(join(root, 'docs'))
    ? readdirSync(join(root, 'docs'))
        .filter((name) => name.endsWith('.md'))
        .map((name) => `docs/${name}`)
    : []
  return ['README.md', ...docs].map((file) => readFileSync(join(root, file), 'utf8'))
}

/** A property of an `env` read: `env.X`, `env?.X`, `env[...]`. */
const ENV_READ = /\benv\??\.\w|\benv\[/

describe('the request context', () => {
  it('keeps lib/store out of every route file', () => {
    expect(matching(sources('functions'), /from '\.\.\/lib\/store(\/|')/)).toEqual([])
  })

  it('leaves reading env to lib/settings.ts: no route file and no other lib/ module reads a setting from it', () => {
    expect(matching(sources('functions'), ENV_READ)).toEqual([])
    expect(
      matching(
        sources('lib').filter((f) => f !== 'lib/settings.ts'),
        ENV_READ,
      ),
    ).toEqual([])
  })

  it('sees a read of env where there is one', () => {
    expect(matching(['lib/settings.ts'], ENV_READ).length).toBeGreaterThan(0)
  })
})

describe('settings', () => {
  it('are parsed once per env object, and each env sees its own', () => {
    const env = { HISTORY_LIMIT: '7' }
    expect(settingsFrom(env)).toBe(settingsFrom(env))
    expect(settingsFrom(env).historyLimit).toBe(7)
    expect(settingsFrom({ HISTORY_LIMIT: '9' }).historyLimit).toBe(9)
    expect(settingsFrom(undefined).historyLimit).toBe(50)
  })

  it('keep AUDIT_MAX_ENTRIES from 1 to 1,000,000 (default 10,000); past it, MISCONFIGURED naming it', () => {
    expect(settingsFrom(undefined).auditMaxEntries).toBe(10_000)
    expect(settingsFrom({ AUDIT_MAX_ENTRIES: '500' }).auditMaxEntries).toBe(500)
    for (const bad of ['0', '1000001', 'many']) {
      expect(() => settingsFrom({ AUDIT_MAX_ENTRIES: bad }).auditMaxEntries, bad).toThrow(
        expect.objectContaining({ code: 'MISCONFIGURED', extra: { setting: 'AUDIT_MAX_ENTRIES' } }),
      )
    }
  })

  it('fail only where read: a bad LLM_ROUTES leaves the render settings alone, and is MISCONFIGURED naming it', () => {
    const settings = settingsFrom({ LLM_ROUTES: '{', LLM_BASE_URL: 'http://x' })
    expect(settings.render.deadlineMs).toBe(500)
    expect(settings.llmConfigured).toBe(true)
    let caught: unknown
    try {
      settings.llmRoute('m')
    } catch (e) {
      caught = e
    }
    expect(caught).toBeInstanceOf(ServiceError)
    expect(caught).toMatchObject({ code: 'MISCONFIGURED', extra: { setting: 'LLM_ROUTES' } })
  })

  it('know every variable of Env but its bindings', () => {
    const declared = [...readFileSync(join(root, 'lib/env.ts'), 'utf8').matchAll(/^ {2}([A-Z][A-Z0-9_]+)\?: string$/gm)]
    const names = declared.map((m) => m[1])
    expect(names.length).toBeGreaterThan(20)
    expect([...names].sort()).toEqual([...SETTING_NAMES].sort())
  })
})

describe('the configuration table', () => {
  const documented = new Set(
    docsText()
      .flatMap((text) => [...text.matchAll(/^\| *`([A-Z][A-Z0-9_]+)` *\|/gm)].map((m) => m[1] as string))
      .filter((name) => !(name in ERROR_STATUS)),
  )

  it('documents every setting', () => {
    expect(SETTING_NAMES.filter((name) => !documented.has(name))).toEqual([])
  })

  it('documents only settings there are (error codes aside)', () => {
    expect([...documented].filter((name) => !(SETTING_NAMES as readonly string[]).includes(name))).toEqual([])
  })
})

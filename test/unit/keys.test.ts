import { describe, expect, it } from 'vitest'
import { keyToFunc, keyToPath, matchUnder, pathToKey } from '../../lib/store/keys'

describe('key formats', () => {
  it("computes the spec's keyToFunc", () => {
    expect(keyToFunc('shenma:tools:codebase:lookup_ref')).toBe('codebase_lookup_ref')
    expect(keyToFunc('shenma:tools:codebase:caller')).toBe('codebase_caller')
    expect(keyToFunc('shenma:tools:mcp:chrome:xx')).toBe('mcp_chrome_xx')
  })

  it("computes the spec's keyToJsonPath and its inverse", () => {
    expect(keyToPath('environs', 'shenma:environs:vscode:programming_language')).toBe('vscode.programming_language')
    expect(keyToPath('templates', 'shenma:templates:evaluator:quick_review')).toBe('evaluator.quick_review')
    expect(pathToKey('environs', 'vscode.frameworks')).toBe('shenma:environs:vscode:frameworks')
  })

  it('refuses a key of another kind', () => {
    expect(() => keyToFunc('shenma:environs:x')).toThrow(/not under shenma:tools:/)
  })

  it('escapes glob characters in SCAN patterns', () => {
    expect(matchUnder('shenma:environs:')).toBe('shenma:environs:*')
    expect(matchUnder('shenma:environs:a*b?[c]\\:')).toBe('shenma:environs:a\\*b\\?\\[c\\]\\\\:*')
  })
})

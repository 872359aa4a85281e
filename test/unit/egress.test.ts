import { describe, expect, it } from 'vitest'
import { EgressError, checkTarget } from '../../lib/egress'

const allows = (url: string, ...allowedHosts: string[]): boolean => {
  try {
    checkTarget(new URL(url), { allowedHosts })
    return true
  } catch (e) {
    if (e instanceof EgressError) return false
    throw e
  }
}

describe('checkTarget', () => {
  it('allows a listed hostname on any port, and host:port on that port, the default ports included', () => {
    expect(allows('https://api.example/x', 'api.example')).toBe(true)
    expect(allows('https://api.example:8443/x', 'api.example')).toBe(true)
    expect(allows('https://api.example/x', 'api.example:443')).toBe(true)
    expect(allows('http://api.example/x', 'api.example:80')).toBe(true)
    expect(allows('http://api.example:8080/x', 'api.example:8080')).toBe(true)
  })

  it('refuses another port, another host, and what only looks like the host', () => {
    expect(allows('https://api.example/x', 'api.example:80')).toBe(false)
    expect(allows('http://api.example:8080/x', 'api.example:80')).toBe(false)
    expect(allows('https://evil.example/x', 'api.example')).toBe(false)
    expect(allows('https://api.example@evil.example/x', 'api.example')).toBe(false)
    expect(allows('https://api.example.evil.example/x', 'api.example')).toBe(false)
  })

  it('refuses schemes other than http and https, whatever the hosts', () => {
    expect(allows('ftp://api.example/x', 'api.example')).toBe(false)
    expect(allows('file:///etc/passwd')).toBe(false)
  })
})

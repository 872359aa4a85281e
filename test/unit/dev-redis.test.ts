// What `npm run dev:redis` prints, for the service wrangler will serve: its
// own forwarded arguments, or wrangler's defaults.
import { describe, expect, it } from 'vitest'
import { DEV_ADMIN_TOKEN, serviceOrigin, whatToTry } from '../../dev/dev-redis'

describe('npm run dev:redis', () => {
  it("names the service's origin from the forwarded --ip and --port, wrangler's defaults else", () => {
    expect(serviceOrigin([])).toBe('http://localhost:8787')
    expect(serviceOrigin(['--port', '8788'])).toBe('http://localhost:8788')
    expect(serviceOrigin(['--ip=127.0.0.1', '--port=9000', '--var', 'A:b', '--local'])).toBe('http://127.0.0.1:9000')
    expect(serviceOrigin(['--ip', '::1'])).toBe('http://[::1]:8787')
  })

  it('prints a PUT, a label, a promote, a rollback, and both ways the CLI reaches it', () => {
    const local = { redisPort: 6390, url: 'http://127.0.0.1:4000', token: 'abc', seeded: 'published 9 records' }
    const lines = whatToTry({ ...local, stop: async () => {} }, 'http://localhost:8788').join('\n')
    expect(lines).toContain("curl -s -X PUT 'localhost:8788/api/prompts/team.greeting?message=first'")
    expect(lines).toContain('?label=feat-warm')
    expect(lines).toContain("curl -s -X POST 'localhost:8788/api/labels/feat-warm/promote'")
    expect(lines).toContain(
      `npx ai-prompt-shell rollback prompts team.greeting --to 1 --api http://localhost:8788 --admin-token ${DEV_ADMIN_TOKEN}`,
    )
    expect(lines).toContain('--url http://127.0.0.1:4000 --token abc')
  })
})

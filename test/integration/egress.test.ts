// Hostile tools and hostile records (issue 12, rows 1, 6, 7, 8 and 11): where a
// tool's requests may go, how much of its answer is read, how many calls a
// render makes, and what of a failure the caller and the log are told. Real
// servers only: the tool server counts what reached it per group, and the
// same server reached as `localhost` stands for a host outside the allow-list.
// After each hostile render, an ordinary one must still answer 200.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freshRedis, logged, mcpServer, renderStored, toolServer } from '../support/harness'
import type { TestRedis } from '../support/harness'
import { mcpTool as mcpRecord, restTool } from '../support/records'
import { LEAKY_FIRST_LINE } from '../support/mcp-server'
import { SECRET } from '../support/tool-server'
import type { Env } from '../../lib/env'

const tools = toolServer()
const mcp = mcpServer()
const port = new URL(tools.url).port
/** The tool server under another name: a host TOOL_ALLOWED_HOSTS leaves out. */
const elsewhere = `http://localhost:${port}`
const ONLY_LOOPBACK: Env = { TOOL_ALLOWED_HOSTS: '127.0.0.1' }
let db: TestRedis

/** A REST tool record of module `e`. */
const rest = (name: string, url: string, method?: string, parameters?: unknown) =>
  restTool('e', name, url, { method, parameters })

/** An MCP tool record of module `e`. */
const mcpTool = (name: string, url: string, tool?: string, parameters?: unknown) =>
  mcpRecord('e', name, url, { tool, parameters })

/** A URL of the tool server that answers `status` redirecting to `to`. */
const redirect = (status: number, to: string, group: string, base = tools.url) =>
  `${base}/redirect/${status}/tools/r?group=${group}&to=${encodeURIComponent(to)}`

/** `hops` redirects in a row (group `hops`), then `to`. */
const chain = (hops: number, to: string): string => (hops === 0 ? to : redirect(302, chain(hops - 1, to), 'hops'))

beforeAll(async () => {
  db = await freshRedis()
  await db.redis.mset({
    'shenma:tools:e:ok': rest('ok', `${tools.url}/tools/ok?group=ok`),
    'shenma:tools:e:get_away': rest('get_away', redirect(302, `${elsewhere}/tools/away?group=away`, 'get-away')),
    'shenma:tools:e:post_away': rest(
      'post_away',
      redirect(307, `${elsewhere}/tools/away?group=away`, 'post-away'),
      'POST',
    ),
    'shenma:tools:e:see_other': rest(
      'see_other',
      redirect(303, `${elsewhere}/tools/away?group=away`, 'see-other'),
      'POST',
    ),
    'shenma:tools:e:post_home': rest(
      'post_home',
      redirect(308, `${tools.url}/tools/home?group=home`, 'post-home'),
      'POST',
    ),
    'shenma:tools:e:delete_away': rest(
      'delete_away',
      redirect(307, `${elsewhere}/tools/away?group=away`, 'delete-away'),
      'DELETE',
    ),
    'shenma:tools:e:twice': rest('twice', `${tools.url}/tools/u/{id}/p/{id}?group=twice`, 'GET', {
      id: { type: 'string' },
    }),
    'shenma:tools:e:deep': rest('deep', `${tools.url}/deep/300/tools/d?group=deep`),
    'shenma:tools:e:mcp_hang': mcpTool('mcp_hang', `${tools.url}/hang/mcp?group=mcp-hang`),
    'shenma:tools:e:to_ftp': rest('to_ftp', redirect(302, 'ftp://127.0.0.1/x', 'ftp')),
    'shenma:tools:e:three_hops': rest('three_hops', chain(3, `${tools.url}/tools/end?group=end3`)),
    'shenma:tools:e:four_hops': rest('four_hops', chain(4, `${tools.url}/tools/end?group=end4`)),
    'shenma:tools:e:mcp_away': mcpTool(
      'mcp_away',
      redirect(307, `${mcp.url.replace('127.0.0.1', 'localhost')}`, 'mcp-away'),
    ),
    'shenma:tools:e:item': rest('item', `${tools.url}/tools/a/{id}/b?group=dots`, 'GET', { id: { type: 'string' } }),
    'shenma:tools:e:relative_item': {
      ...rest('relative_item', '/{id}?group=rel', 'GET', { id: { type: 'string' } }),
      module: 'rel',
    },
    'shenma:tools:e:climbing': { ...rest('climbing', '../../tools/top?group=rel'), module: 'rel' },
    'shenma:environs:modules:rel': { base_url: `${tools.url}/base/api` },
    'shenma:tools:e:count': rest('count', `${tools.url}/tools/count?group=cap`, 'GET', { i: { type: 'integer' } }),
    'shenma:tools:e:big': rest('big', `${tools.url}/big/100000000/tools/big?group=big`),
    'shenma:tools:e:huge': rest('huge', `${tools.url}/chunked/big/100000000/tools/huge?group=huge`),
    'shenma:tools:e:kib4': rest('kib4', `${tools.url}/chunked/big/4096/tools/kib?group=kib`),
    'shenma:tools:e:kib5': rest('kib5', `${tools.url}/chunked/big/5000/tools/kib?group=kib`),
    'shenma:tools:e:mcp_big': mcpTool('mcp_big', `${mcp.url}?group=egress`, 'big', { bytes: { type: 'integer' } }),
    'shenma:tools:e:secret': rest('secret', `${tools.url}/status/500/secret/tools/s?group=secret`),
    'shenma:tools:e:leaky': mcpTool('leaky', `${mcp.url}?group=egress`),
    'shenma:tools:e:bom_text': rest('bom_text', `${tools.url}/bom/text/tools/b`),
    'shenma:tools:e:bom_json': rest('bom_json', `${tools.url}/bom/tools/b`),
  })
})
afterAll(() => db.release())

/** Stores a prompt under egress.{name} and renders it. */
const render = (name: string, prompt: string, env: Env = {}) =>
  renderStored(db, `egress.${name}`, prompt, { ...db.env, RENDER_TIMEOUT_MS: '5000', TOOL_TIMEOUT_MS: '3000', ...env })

/** An ordinary render after a hostile one: the isolate still answers. */
async function expectHealthy(): Promise<void> {
  const { status, body } = await render('ordinary', '[{{(e_ok "fine").query.x}}]')
  expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '[fine]' })
}

/** The one warning of a render that failed one call. */
function onlyWarning(body: Record<string, unknown>): Record<string, unknown> {
  const warnings = body.warnings as Record<string, unknown>[]
  expect(warnings).toHaveLength(1)
  return warnings[0] as Record<string, unknown>
}

describe('redirects (row 1)', () => {
  it('are not followed to a host outside TOOL_ALLOWED_HOSTS', async () => {
    await Promise.all([tools.reset('get-away'), tools.reset('away')])
    const { status, body } = await render('get_away', '[{{e_get_away "v"}}]', ONLY_LOOPBACK)
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '[]' })
    expect(onlyWarning(body).message).toBe(
      `was redirected (HTTP 302) elsewhere, and its host localhost:${port} is not in TOOL_ALLOWED_HOSTS`,
    )
    expect([(await tools.stats('get-away')).calls, (await tools.stats('away')).calls]).toEqual([1, 0])
    await expectHealthy()
  })

  it("never send a POST's body to another origin, even with every host allowed", async () => {
    await Promise.all([tools.reset('post-away'), tools.reset('see-other'), tools.reset('away')])
    const { body } = await render('post_away', '[{{e_post_away "an arg value"}}][{{e_see_other "v"}}]')
    expect(body.rendered_prompt).toBe('[][]')
    const warnings = body.warnings as { tool: string }[]
    expect(warnings.sort((a, b) => (a.tool < b.tool ? -1 : 1))).toEqual([
      {
        code: 'TOOL_FAILED',
        tool: 'e_post_away',
        message: 'was redirected (HTTP 307) to another origin by a redirect that would send its POST again',
      },
      {
        code: 'TOOL_FAILED',
        tool: 'e_see_other',
        message: 'was redirected (HTTP 303) to another origin by a redirect that turns its POST into a GET',
      },
    ])
    const [sent, ...more] = (await tools.stats('post-away')).requests
    expect({ sent, more }).toEqual({
      sent: expect.stringMatching(/^POST \/redirect\/307\/tools\/r\?to=\S+ \{"x":"an arg value"\}$/),
      more: [],
    })
    expect((await tools.stats('away')).calls).toBe(0)
    await expectHealthy()
  })

  it('never repeat a DELETE at another origin, though it has no body', async () => {
    await Promise.all([tools.reset('delete-away'), tools.reset('away')])
    const { body } = await render('delete_away', '[{{e_delete_away "v"}}]')
    expect(onlyWarning(body).message).toBe(
      'was redirected (HTTP 307) to another origin by a redirect that would send its DELETE again',
    )
    expect([(await tools.stats('delete-away')).calls, (await tools.stats('away')).calls]).toEqual([1, 0])
  })

  it('are followed within the origin, the body sent again, and to an allowed host', async () => {
    await tools.reset('home')
    const { body } = await render(
      'post_home',
      '{{$a := e_post_home "v"}}{{$a.method}} {{$a.path}} {{$a.body.x}}',
      ONLY_LOOPBACK,
    )
    expect(body.warnings).toBeUndefined()
    expect(body.rendered_prompt).toBe('POST /tools/home v')
    expect((await tools.stats('home')).calls).toBe(1)
  })

  it('are at most three in a row', async () => {
    await Promise.all(['hops', 'end3', 'end4'].map((g) => tools.reset(g)))
    const three = await render('three_hops', '[{{(e_three_hops "v").path}}]')
    expect(three.body.rendered_prompt).toBe('[/tools/end]')
    expect((await tools.stats('end3')).calls).toBe(1)
    await tools.reset('hops')
    const four = await render('four_hops', '[{{e_four_hops "v"}}]')
    expect(four.body.rendered_prompt).toBe('[]')
    expect(onlyWarning(four.body).message).toBe('was redirected more than 3 times')
    // The first request and three redirects followed; the fourth is not.
    expect([(await tools.stats('hops')).calls, (await tools.stats('end4')).calls]).toEqual([4, 0])
    await expectHealthy()
  })

  it('lead to http and https only', async () => {
    const { body } = await render('to_ftp', '[{{e_to_ftp "v"}}]')
    expect(onlyWarning(body).message).toBe(
      "was redirected (HTTP 302) elsewhere, and its URL's scheme ftp: is not http: or https:",
    )
  })

  it('of an MCP server are checked the same way', async () => {
    await mcp.reset('default')
    const { body } = await render('mcp_away', '[{{e_mcp_away}}]')
    expect(body.rendered_prompt).toBe('[]')
    expect(onlyWarning(body).message).toMatch(/^was redirected \(HTTP 307\) to another origin/)
    expect(await mcp.calls('default')).toEqual({})
    await expectHealthy()
  })
})

describe('path placeholders (row 7)', () => {
  it('refuse a dot segment, and send nothing', async () => {
    await tools.reset('dots')
    const { body } = await render('dots', '[{{e_item ".."}}][{{e_item "."}}]')
    expect(body.rendered_prompt).toBe('[][]')
    expect((body.warnings as { message: string }[]).map((w) => w.message).sort()).toEqual([
      "'id' is '.', a dot segment in its URL",
      "'id' is '..', a dot segment in its URL",
    ])
    expect((await tools.stats('dots')).calls).toBe(0)
    await expectHealthy()
  })

  it('may name one parameter twice', async () => {
    const { body } = await render('twice', '{{(e_twice "7").path}}')
    expect({ rendered: body.rendered_prompt, warnings: body.warnings }).toEqual({
      rendered: '/tools/u/7/p/7',
      warnings: undefined,
    })
  })

  it('take any other value, dots included, as one segment', async () => {
    await tools.reset('dots')
    const { body } = await render('dotted', '{{(e_item "...").path}} {{(e_item "a.b").path}} {{(e_item "../x").path}}')
    expect(body.rendered_prompt).toBe('/tools/a/.../b /tools/a/a.b/b /tools/a/..%2Fx/b')
    expect((await tools.stats('dots')).calls).toBe(3)
  })

  it("keep a relative URL under the base URL's path", async () => {
    await tools.reset('rel')
    const { body } = await render(
      'relative',
      '[{{e_relative_item ".."}}][{{e_climbing "v"}}][{{(e_relative_item "x").path}}]',
    )
    expect(body.rendered_prompt).toBe('[][][/base/api/x]')
    expect((body.warnings as { tool: string; message: string }[]).map((w) => [w.tool, w.message]).sort()).toEqual([
      ['e_climbing', "its URL's path would leave /base/api/"],
      ['e_relative_item', "'id' is '..', a dot segment in its URL"],
    ])
    expect((await tools.stats('rel')).requests).toEqual(['GET /base/api/x'])
  })
})

describe('the call cap (row 8)', () => {
  it('makes at most TOOL_MAX_CALLS distinct calls, warns once for the rest, and keeps the log line small', async () => {
    await tools.reset('cap')
    const {
      result: { status, body },
      lines,
    } = await logged(() =>
      render('cap', '{{range 100000}}{{e_count (dict "i" .)}}{{end}}', { RENDER_TIMEOUT_MS: '20000' }),
    )
    expect(status).toBe(200)
    expect(body.warnings).toEqual([
      {
        code: 'TOOL_CALLS_REFUSED',
        refused: 100000 - 64,
        message: '99936 more tool calls were refused: a render makes at most 64 (TOOL_MAX_CALLS)',
      },
    ])
    expect((await tools.stats('cap')).calls).toBe(64)
    const [line] = lines
    expect(lines).toHaveLength(1)
    expect(line?.tools).toHaveLength(20)
    expect(line?.tools_total).toEqual({ ok: 64, refused: 99936 })
    expect(JSON.stringify(line).length).toBeLessThan(8 * 1024)
    await expectHealthy()
  })

  it('counts a repeated call once, and reads TOOL_MAX_CALLS', async () => {
    await tools.reset('cap')
    const { body } = await render('cap_small', '{{range 10}}{{e_count 1}}{{e_count 2}}{{e_count 3}}{{end}}', {
      TOOL_MAX_CALLS: '2',
    })
    // Each attempt of the third call is refused; the first two were made once.
    expect(body.warnings).toEqual([expect.objectContaining({ code: 'TOOL_CALLS_REFUSED', refused: 10 })])
    expect((await tools.stats('cap')).calls).toBe(2)
  })
})

describe('answers (row 6)', () => {
  it('over TOOL_MAX_BYTES by their Content-Length fail before they are read', async () => {
    await tools.reset('big')
    const { status, body } = await render('big', '[{{e_big "v"}}]')
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '[]' })
    expect(onlyWarning(body).message).toBe(
      'answered 100000000 bytes (its Content-Length), more than TOOL_MAX_BYTES (1048576 bytes)',
    )
    expect(await tools.idle('big')).toMatchObject({ calls: 1, cutShort: 1 })
    await expectHealthy()
  })

  it('growing past TOOL_MAX_BYTES are cut, and the connection let go', async () => {
    await tools.reset('huge')
    const { status, body } = await render('huge', '[{{e_huge "v"}}]')
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '[]' })
    expect(onlyWarning(body).message).toBe('answered more than TOOL_MAX_BYTES (1048576 bytes)')
    // The server stops writing when the Worker lets the answer go, long before 100 MB.
    const stats = await tools.idle('huge')
    expect(stats).toMatchObject({ calls: 1, cutShort: 1 })
    expect(stats.bigBytesSent).toBeLessThan(100_000_000)
    await expectHealthy()
  })

  it('are cut at exactly TOOL_MAX_BYTES bytes', async () => {
    const { body } = await render('kib', '{{len e_kib4}} [{{e_kib5}}]', { TOOL_MAX_BYTES: '4096' })
    expect(body.rendered_prompt).toBe('4096 []')
    expect(onlyWarning(body)).toMatchObject({
      tool: 'e_kib5',
      message: 'answered more than TOOL_MAX_BYTES (4096 bytes)',
    })
  })

  it('of an MCP tool over TOOL_MAX_BYTES fail the call by name', async () => {
    const { status, body } = await render('mcp_big', '{{len (e_mcp_big 1000)}} [{{e_mcp_big 2000000}}]')
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '1000 []' })
    expect(onlyWarning(body).message).toBe('answered more than TOOL_MAX_BYTES (1048576 bytes)')
    await expectHealthy()
  })

  it('nested deeper than a record may be fail the call, not the render', async () => {
    const { status, body } = await render('deep', '[{{e_deep "v"}}]')
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '[]' })
    expect(onlyWarning(body).message).toBe('answered JSON nested deeper than 100 levels')
    await expectHealthy()
  })

  it("of an MCP server: the server's standalone event stream is never asked for", async () => {
    await mcp.reset('egress')
    const { body } = await render('mcp_no_get', '{{len (e_mcp_big 10)}}')
    expect(body.rendered_prompt).toBe('10')
    // The handshake and the call are POSTs; a GET would open a stream that has no end, and no use in a render.
    expect(await mcp.methods('egress')).toEqual({ POST: expect.any(Number) })
  })

  it('wait for an MCP handshake no longer than the call may take', async () => {
    const { status, body } = await render('mcp_hang', '[{{e_mcp_hang}}]', { TOOL_TIMEOUT_MS: '200' })
    expect({ status, rendered: body.rendered_prompt }).toEqual({ status: 200, rendered: '[]' })
    expect(onlyWarning(body).message).toBe('timed out after 200 ms')
  })

  it('keep a leading BOM in text, and parse as JSON with one', async () => {
    const { body } = await render('bom', '{{e_bom_text "v"}}|{{(e_bom_json "v").method}}')
    expect(body.warnings).toBeUndefined()
    expect(body.rendered_prompt).toBe('\ufeffplain answer|GET')
  })
})

describe('failures (row 11)', () => {
  it("quote an error answer's status line, and nothing of its body, to the caller or the log", async () => {
    const {
      result: { body },
      lines,
    } = await logged(() => render('secret', '[{{e_secret "v"}}]'))
    expect(onlyWarning(body).message).toBe('answered HTTP 500 Internal Server Error')
    expect(JSON.stringify(lines)).not.toContain('hunter2')
    expect(lines[0]?.tools).toEqual([
      {
        tool: 'e_secret',
        outcome: 'failed',
        reason: 'answered HTTP 500 Internal Server Error',
        ms: expect.any(Number),
      },
    ])
  })

  it("give an MCP tool's error result to the caller as one short clean line, and to the log not at all", async () => {
    const {
      result: { body },
      lines,
    } = await logged(() => render('leaky', '[{{e_leaky}}]'))
    const message = onlyWarning(body).message as string
    const reason = message.replace(/^answered an error: /, '')
    expect(LEAKY_FIRST_LINE.replace(/[\u0000-\u001f]/g, '')).toContain(reason.replace(/…$/, ''))
    expect(reason.length).toBeLessThanOrEqual(100)
    expect(message).not.toMatch(/[\u0000-\u001f]/)
    expect(message).not.toContain(SECRET)
    expect(JSON.stringify(lines)).not.toContain('quota')
    expect(lines[0]?.tools).toEqual([
      { tool: 'e_leaky', outcome: 'failed', reason: 'answered an error', ms: expect.any(Number) },
    ])
  })
})

// The CLI as extension authors run it (`npx ai-prompt-shell ...`, a separate
// Node process): publish the examples into a real Redis through the
// Upstash-protocol bridge, then read them back through the Worker under
// wrangler dev, and render through it. Then versions, rollback, labels and
// promote: directly against Upstash (a database of their own), and through
// the Worker's write API (ADMIN_TOKEN set).
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { deleteRecord } from '../../lib/publish'
import { bucketOf, checkRollout, versionAt } from '../../lib/rollout'
import { UpstashStore } from '../../lib/store'
import { startRedis } from '../support/redis-server'
import type { RedisServer } from '../support/redis-server'
import { startBridge } from '../support/upstash-bridge'
import type { Bridge } from '../support/upstash-bridge'
import { startDev } from '../support/wrangler-dev'
import type { DevServer } from '../support/wrangler-dev'

const run = promisify(execFile)
const ADMIN_TOKEN = 'e2e-admin-token'
/** The timeout of the tests running the CLI several times, each a process of its own (seconds apiece on a loaded machine). */
const MANY_RUNS = 120_000

let redis: RedisServer
let bridge: Bridge
let dev: DevServer
/** The database the Worker under wrangler dev reads. */
let token: string
/** A database of the direct (Upstash) tests alone. */
let directToken: string
let direct: UpstashStore
let served: UpstashStore

/** stderr less npm's own warnings (a machine's npm configuration), which are not the CLI's. */
const ownLines = (stderr: string) => stderr.replace(/^npm warn .*\n/gm, '')

/** `npx ai-prompt-shell ...args`: its exit status and output, failure or not; no configuration from this environment. */
async function cli(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = {
    API_TOKEN: '',
    ADMIN_TOKEN: '',
    AI_PROMPT_SHELL_URL: '',
    UPSTASH_REDIS_REST_URL: '',
    UPSTASH_REDIS_REST_TOKEN: '',
    HISTORY_LIMIT: '',
  }
  try {
    const { stdout, stderr } = await run('npx', ['ai-prompt-shell', ...args], {
      env: { ...process.env, ...clean, ...env },
    })
    return { code: 0, stdout, stderr: ownLines(stderr) }
  } catch (e) {
    const failed = e as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: ownLines(failed.stderr) }
  }
}

async function newDatabase(): Promise<string> {
  const res = await fetch(`${bridge.url}/__bridge/databases`, { method: 'POST' })
  return ((await res.json()) as { token: string }).token
}

/** A folder holding one prompt record per `{id: text}`, at templates/{a}/{b}.json as `publish` reads it. */
async function promptFiles(prompts: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'aps-cli-'))
  for (const [id, text] of Object.entries(prompts)) {
    const file = join(dir, 'templates', ...id.split('.')) + '.json'
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, JSON.stringify({ name: id, description: `the prompt ${id}`, prompt: text }))
  }
  return dir
}

/** The rows of a `versions` table: [version, message, deleted] of each, newest first (its `by` column aside). */
function rows(stdout: string): [number, string, string][] {
  const lines = stdout.trimEnd().split('\n')
  const at = lines.findIndex((line) => /^version\s+created_at\s+by\s+message\s+deleted$/.test(line))
  expect(at, stdout).toBeGreaterThanOrEqual(0)
  return lines.slice(at + 1).map((line) => {
    const [, version, , , message, deleted] = /^(\d+)\s+(\S+)\s+(\S+) +(.*?)\s*  (yes|no)$/.exec(line) ?? []
    expect(version, line).toBeDefined()
    return [Number(version), message as string, deleted as string]
  })
}

/**
 * The lines of `stderr` but the one warning a promotion may give on a database whose record index no service
 * has built yet (its keys are then read by SCAN): what a command should not have printed.
 */
function unexpected(stderr: string): string[] {
  return stderr.split('\n').filter((line) => line !== '' && !line.includes('the record index is not ready'))
}

/** Every key of a database with its value: what "writes nothing" is checked against. */
async function snapshot(store: UpstashStore): Promise<Record<string, string | null>> {
  const keys = await store.scan('shenma:')
  const values = await store.values(keys)
  return Object.fromEntries(keys.map((key, i) => [key, values[i] ?? null]))
}

async function storedPrompt(store: UpstashStore, key: string): Promise<string | undefined> {
  const [raw] = await store.values([key])
  return raw === null || raw === undefined ? undefined : (JSON.parse(raw) as { prompt: string }).prompt
}

beforeAll(async () => {
  redis = await startRedis()
  bridge = await startBridge({ redisPort: redis.port })
  token = await newDatabase()
  directToken = await newDatabase()
  direct = new UpstashStore({ url: bridge.url, token: directToken, timeoutMs: 5000 })
  served = new UpstashStore({ url: bridge.url, token, timeoutMs: 5000 })
  dev = await startDev({ UPSTASH_REDIS_REST_URL: bridge.url, UPSTASH_REDIS_REST_TOKEN: token, ADMIN_TOKEN })
}, 60_000)

afterAll(async () => {
  await dev?.stop()
  await bridge?.stop()
  await redis?.stop()
})

describe('npx ai-prompt-shell', () => {
  it('publishes records that the Worker then serves', async () => {
    const before = (await (await fetch(`${dev.url}/api/extensions`)).json()) as { data: unknown[] }
    expect(before.data).toEqual([])

    const published = await cli(['publish', 'examples', '--url', bridge.url, '--token', token])
    expect(published.stderr).not.toMatch(/error/)
    expect(published.code).toBe(0)
    expect(published.stdout).toMatch(/^SET shenma:extensions:evaluator +version 1 +from examples\/extensions/m)
    expect(published.stdout).toMatch(/published 11 records/)

    const after = (await (await fetch(`${dev.url}/api/extensions`)).json()) as { data: { id: string }[] }
    expect(after.data.map((e) => e.id)).toEqual(['evaluator'])
    const tools = (await (await fetch(`${dev.url}/api/tools`)).json()) as { data: { id: string }[] }
    expect(tools.data.map((t) => t.id).sort()).toEqual([
      'codebase_lookup_ref',
      'greeter_greet',
      'tickets_lookup',
      'translate_zh_en',
    ])
    const prompt = await fetch(`${dev.url}/api/prompts/evaluator.quick_review`)
    expect(prompt.headers.get('x-prompt-version')).toBe('1')
  })

  it('renders a published prompt through the running service', async () => {
    const rendered = await cli(['render', 'evaluator.quick_review', '--args', '{"code": "x := 1"}', '--url', dev.url])
    expect(rendered.code).toBe(0)
    expect(rendered.stdout).toMatch(
      /^Review this go code \(frameworks: gin, gorm, gin-swagger\) in one paragraph:\nx := 1\n$/,
    )
  })

  it('prints the service error of a render and exits 1', async () => {
    const rendered = await cli(['render', 'evaluator.quick_review', '--url', dev.url])
    expect(rendered.code).toBe(1)
    expect(rendered.stderr).toMatch(/^INVALID_ARGS: invalid args: code is required$/m)
  })

  it('publishes nothing when a file is invalid', async () => {
    const published = await cli([
      'publish',
      'examples/extensions',
      'jsonschema/tool.json',
      '--url',
      bridge.url,
      '--token',
      token,
    ])
    expect(published.code).toBe(1)
    expect(published.stderr).toMatch(/^error: jsonschema\/tool.json: has no key/m)
    expect(published.stdout).not.toMatch(/SET/)
  })

  it('lists under --dry-run the keys a publish to a label would write, with no connection at all', async () => {
    const dry = await cli(['publish', 'examples/templates', '--label', 'feat-dry', '--dry-run'])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toMatch(/^SET shenma:labels:feat-dry:templates:evaluator:quick_review +\d+ bytes +from /m)
  })
})

describe('versions, rollback and promote, directly against Upstash', { timeout: MANY_RUNS }, () => {
  const upstash = () => ['--url', bridge.url, '--token', directToken]

  it("publishes into a label: the label's own key, whose versions are listed under that label alone", async () => {
    const dir = await promptFiles({ 'team.review': 'Review {{.args.code}}' })
    const published = await cli(['publish', dir, '--label', 'feat-x', '--message', 'first cut', ...upstash()])
    expect(published.stderr).toBe('')
    expect(published.code).toBe(0)
    expect(published.stdout).toMatch(/^SET shenma:labels:feat-x:templates:team:review +version 1 +from /m)
    expect(published.stdout).toMatch(/published 1 record in label feat-x to /)
    expect(await storedPrompt(direct, 'shenma:labels:feat-x:templates:team:review')).toBe('Review {{.args.code}}')
    expect(await storedPrompt(direct, 'shenma:templates:team:review')).toBeUndefined()

    const listed = await cli(['versions', 'prompts', 'team.review', '--label', 'feat-x', ...upstash()])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^prompts team\.review \(label feat-x's own record\):$/m)
    expect(rows(listed.stdout)).toEqual([[1, 'first cut', 'no']])

    const base = await cli(['versions', 'prompts', 'team.review', ...upstash()])
    expect(base.code).toBe(1)
    expect(base.stderr).toMatch(/^versions: NOT_FOUND: prompt 'team.review' does not exist/m)
  })

  it('lists the versions of three publishes newest first, and rolls back to the first as version 4', async () => {
    for (const [n, text] of ['one {{.args.x}}', 'two {{.args.x}}', 'three {{.args.x}}'].entries()) {
      const dir = await promptFiles({ 'team.triple': text })
      const published = await cli(['publish', dir, '--message', `publish ${n + 1}`, ...upstash()])
      expect(published.code, published.stderr).toBe(0)
      expect(published.stdout).toMatch(new RegExp(`^SET shenma:templates:team:triple +version ${n + 1} `, 'm'))
    }
    const listed = await cli(['versions', 'prompts', 'team.triple', ...upstash()])
    expect(listed.code).toBe(0)
    expect(listed.stdout).toMatch(/^prompts team\.triple \(the base\):$/m)
    expect(rows(listed.stdout)).toEqual([
      [3, 'publish 3', 'no'],
      [2, 'publish 2', 'no'],
      [1, 'publish 1', 'no'],
    ])

    const rolled = await cli(['rollback', 'prompts', 'team.triple', '--to', '1', ...upstash()])
    expect(rolled.stderr).toBe('')
    expect(rolled.code).toBe(0)
    expect(rolled.stdout).toMatch(/version 4 at shenma:templates:team:triple is version 1 again/)
    expect(await storedPrompt(direct, 'shenma:templates:team:triple')).toBe('one {{.args.x}}')
    const after = await cli(['versions', 'prompts', 'team.triple', ...upstash()])
    expect(rows(after.stdout).map(([v, message]) => [v, message])).toEqual([
      [4, 'rollback to version 1'],
      [3, 'publish 3'],
      [2, 'publish 2'],
      [1, 'publish 1'],
    ])
  })

  it('rolls a prompt out directly against Upstash, refusing a version it does not keep', async () => {
    for (const text of ['one', 'two']) {
      const published = await cli(['publish', await promptFiles({ 'team.rolled': text }), ...upstash()])
      expect(published.code, published.stderr).toBe(0)
    }
    const refused = await cli(['rollout', 'team.rolled', '2=90', '5=10', ...upstash()])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^rollout: BAD_REQUEST: version 5 is not a version kept/m)
    const started = await cli(['rollout', 'team.rolled', '2=90', '1=10', ...upstash()])
    expect(started.stderr).toBe('')
    expect(started.stdout).toMatch(/version 1  10%\n  sticky: none/)
    expect(await direct.values(['shenma:rollouts:base:team.rolled'])).toEqual([
      '{"versions":[{"version":2,"weight":90},{"version":1,"weight":10}],"sticky":null}',
    ])
    const misuse = await cli(['rollout', 'team.rolled', '7'])
    expect(misuse.code).toBe(2)
    expect(misuse.stderr).toMatch(/'7' is not VERSION=WEIGHT/)
  })

  it('refuses to roll back to a version that is a deletion, and writes nothing', async () => {
    const dir = await promptFiles({ 'team.gone': 'soon gone' })
    expect((await cli(['publish', dir, ...upstash()])).code).toBe(0)
    await deleteRecord(direct, 'prompts', 'team.gone', { historyLimit: 50, message: 'removed' })
    const before = await snapshot(direct)

    const rolled = await cli(['rollback', 'prompts', 'team.gone', '--to', '2', ...upstash()])
    expect(rolled.code).toBe(1)
    expect(rolled.stderr).toMatch(/^rollback: CONFLICT: version 2 of prompts team\.gone is its deletion/m)
    const missing = await cli(['rollback', 'prompts', 'team.gone', '--to', '9', ...upstash()])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^rollback: VERSION_NOT_FOUND: /m)
    expect(await snapshot(direct)).toEqual(before)

    const listed = await cli(['versions', 'prompts', 'team.gone', ...upstash()])
    expect(rows(listed.stdout)).toEqual([
      [2, 'removed', 'yes'],
      [1, '', 'no'],
    ])
  })

  it('prints what a promotion would change as a diff under --dry-run, and writes nothing', async () => {
    const base = await promptFiles({ 'team.promo': 'base text', 'team.doomed': 'doomed text' })
    expect((await cli(['publish', base, ...upstash()])).code).toBe(0)
    const branch = await promptFiles({ 'team.promo': 'label text', 'team.added': 'added text' })
    expect((await cli(['publish', branch, '--label', 'feat-promo', ...upstash()])).code).toBe(0)
    await deleteRecord(direct, 'prompts', 'team.doomed', { historyLimit: 50, label: 'feat-promo' })
    const before = await snapshot(direct)

    const dry = await cli(['promote', '--from', 'feat-promo', '--dry-run', ...upstash()])
    expect(unexpected(dry.stderr)).toEqual([])
    expect(dry.code).toBe(0)
    expect(dry.stdout).toBe(
      [
        '+ prompts team.added (shenma:templates:team:added)',
        '+{',
        '+  "name": "team.added",',
        '+  "description": "the prompt team.added",',
        '+  "prompt": "added text"',
        '+}',
        '- prompts team.doomed (shenma:templates:team:doomed)',
        '-{',
        '-  "name": "team.doomed",',
        '-  "description": "the prompt team.doomed",',
        '-  "prompt": "doomed text"',
        '-}',
        '~ prompts team.promo (shenma:templates:team:promo)',
        ' {',
        '   "name": "team.promo",',
        '   "description": "the prompt team.promo",',
        '-  "prompt": "base text"',
        '+  "prompt": "label text"',
        ' }',
        'dry run: promoting label feat-promo would change 3 records of the base; nothing was written',
        '',
      ].join('\n'),
    )
    expect(await snapshot(direct)).toEqual(before)
  })

  it("promotes a label's records onto the base and removes the label's keys", async () => {
    const promoted = await cli(['promote', '--from', 'feat-promo', '--message', 'merged', ...upstash()])
    expect(unexpected(promoted.stderr)).toEqual([])
    expect(promoted.code).toBe(0)
    expect(promoted.stdout).toMatch(/^~ prompts team\.promo \(shenma:templates:team:promo\)$/m)
    expect(promoted.stdout).toMatch(/promoted label feat-promo onto the base: 3 records changed, and the label removed/)
    expect(promoted.stdout).not.toMatch(/^[-+ ]\{/m)

    expect(await direct.scan('shenma:labels:feat-promo:')).toEqual([])
    expect(await storedPrompt(direct, 'shenma:templates:team:promo')).toBe('label text')
    expect(await storedPrompt(direct, 'shenma:templates:team:added')).toBe('added text')
    expect(await storedPrompt(direct, 'shenma:templates:team:doomed')).toBeUndefined()
    const listed = await cli(['versions', 'prompts', 'team.promo', ...upstash()])
    expect(rows(listed.stdout).map(([v, message]) => [v, message])).toEqual([
      [2, 'merged'],
      [1, ''],
    ])
    // The label is gone: under it, the base's record and versions.
    const under = await cli(['versions', 'prompts', 'team.promo', '--label', 'feat-promo', ...upstash()])
    expect(under.stdout).toMatch(/\(the base\)/)
  })

  it("runs the label's tests first, as the service's gate does: a failing case refuses, --force promotes", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'aps-cli-'))
    const file = join(dir, 'templates', 'team', 'gated.json')
    await mkdir(dirname(file), { recursive: true })
    const cases = [{ name: 'greets by name', args: { who: 'Ada' }, assert: [{ type: 'contains', value: 'Hello Ada' }] }]
    await writeFile(file, JSON.stringify({ prompt: 'Bye {{.args.who}}', tests: cases }))
    expect((await cli(['publish', dir, '--label', 'feat-gated', ...upstash()])).code).toBe(0)
    const before = await snapshot(direct)

    const refused = await cli(['promote', '--from', 'feat-gated', ...upstash()])
    expect(refused.code, refused.stderr).toBe(1)
    expect(refused.stdout, refused.stderr).toMatch(/^fail +team\.gated/m)
    expect(refused.stdout).toMatch(/expected: +"Hello Ada"/)
    expect(refused.stdout).toMatch(/actual: +"Bye Ada"/)
    expect(refused.stderr).toMatch(/^promote: TESTS_FAILED: label 'feat-gated' was not promoted/m)
    expect(await snapshot(direct)).toEqual(before)

    const forced = await cli(['promote', '--from', 'feat-gated', '--force', ...upstash()])
    expect(forced.code, forced.stderr).toBe(0)
    expect(await storedPrompt(direct, 'shenma:templates:team:gated')).toBe('Bye {{.args.who}}')
    const listed = await cli(['versions', 'prompts', 'team.gated', ...upstash()])
    expect(rows(listed.stdout)[0]?.[1]).toBe('promoted from label feat-gated; tests skipped (force)')
  })

  it('publishes the same files twice as one version: the second run writes nothing and says so', async () => {
    const dir = await promptFiles({ 'team.twice': 'same {{.args.x}}', 'team.other': 'other' })
    const first = await cli(['publish', dir, ...upstash()])
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toMatch(/^published 2 records to /m)
    const before = await snapshot(direct)

    const second = await cli(['publish', dir, '--message', 'again', ...upstash()])
    expect(second.stderr).toBe('')
    expect(second.code).toBe(0)
    expect(second.stdout).toMatch(/^unchanged shenma:templates:team:twice +version 1 +from /m)
    expect(second.stdout).toMatch(/^unchanged shenma:templates:team:other +version 1 +from /m)
    expect(second.stdout).toMatch(/^published 0 records to .*; 2 records unchanged$/m)
    expect(await snapshot(direct)).toEqual(before)
    expect(rows((await cli(['versions', 'prompts', 'team.twice', ...upstash()])).stdout)).toEqual([[1, '', 'no']])

    // One file changed: that record alone gets a version.
    await writeFile(join(dir, 'templates/team/other.json'), JSON.stringify({ name: 'team.other', prompt: 'changed' }))
    const third = await cli(['publish', dir, ...upstash()])
    expect(third.code, third.stderr).toBe(0)
    expect(third.stdout).toMatch(/^SET +shenma:templates:team:other +version 2 +from /m)
    expect(third.stdout).toMatch(/^unchanged shenma:templates:team:twice +version 1 /m)
    expect(third.stdout).toMatch(/^published 1 record to .*; 1 record unchanged$/m)
  })

  it('refuses a label that is not one, a kind that is not one, and a missing --to, before any request', async () => {
    const nowhere = ['--url', 'http://127.0.0.1:1', '--token', 'x']
    const cases: [string[], RegExp][] = [
      [
        ['publish', 'examples', '--label', 'Feat_X', ...nowhere],
        /^publish: --label 'Feat_X' is not a label: it must be/m,
      ],
      [['versions', 'prompts', 'a.b', '--label=-x', ...nowhere], /^versions: --label '-x' is not a label/m],
      [['promote', '--from', 'feat', '--to', 'UP', ...nowhere], /^promote: --to 'UP' is not a label/m],
      [['promote', '--from', 'feat', '--to', 'feat', ...nowhere], /cannot be promoted onto itself/],
      [['promote', ...nowhere], /^promote: give --from NAME/m],
      [['versions', 'templates', 'a.b', ...nowhere], /^versions: 'templates' is not a kind of record/m],
      [['rollback', 'prompts', 'a.b', '--to', 'first', ...nowhere], /^rollback: give --to N/m],
      [['versions', 'prompts', 'a.b'], /^versions: give --url and --token of Upstash/m],
    ]
    for (const [args, said] of cases) {
      const result = await cli(args)
      expect(result.code, args.join(' ')).toBe(2)
      expect(result.stderr, args.join(' ')).toMatch(said)
    }
  })
})

describe("versions, rollback and promote through the Worker's write API", { timeout: MANY_RUNS }, () => {
  const api = () => ['--url', dev.url, '--admin-token', ADMIN_TOKEN]

  it("publishes into a label with one PUT per record, which the label's reads then serve", async () => {
    const dir = await promptFiles({ 'team.api': 'from the branch' })
    const published = await cli(['publish', dir, '--label', 'feat-api', '--message', 'via api', ...api()])
    expect(published.stderr).toBe('')
    expect(published.code).toBe(0)
    expect(published.stdout).toMatch(/^SET shenma:labels:feat-api:templates:team:api +version 1 +from /m)
    expect(published.stdout).toMatch(/published 1 record in label feat-api to http:\/\/127\.0\.0\.1:\d+ \(write API\)/)

    const labelled = await fetch(`${dev.url}/api/prompts/team.api?label=feat-api`)
    expect(labelled.status).toBe(200)
    expect(labelled.headers.get('x-prompt-label')).toBe('feat-api')
    expect(labelled.headers.get('x-prompt-version')).toBe('1')
    expect((await fetch(`${dev.url}/api/prompts/team.api`)).status).toBe(404)

    // ADMIN_TOKEN in the environment and --url alone: the deployment too.
    const listed = await cli(['versions', 'prompts', 'team.api', '--label', 'feat-api', '--url', dev.url], {
      ADMIN_TOKEN,
    })
    expect(listed.stderr).toBe('')
    expect(listed.stdout).toMatch(/^prompts team\.api \(label feat-api's own record\):$/m)
    expect(rows(listed.stdout)).toEqual([[1, 'via api', 'no']])
  })

  it("rolls a prompt out between two versions through the API: shown, served by the sticky header's hash, ended", async () => {
    for (const text of ['roll one', 'roll two']) {
      const published = await cli(['publish', await promptFiles({ 'team.roll': text }), ...api()])
      expect(published.code, published.stderr).toBe(0)
    }
    const started = await cli(['rollout', 'team.roll', '2=50', '1=50', '--sticky', 'header:X-User-Id', ...api()])
    expect(started.stderr).toBe('')
    expect(started.stdout).toBe(
      'prompt team.roll (the base):\n  version 2  50%\n  version 1  50%\n  sticky: header:X-User-Id\n',
    )
    const rollout = checkRollout({
      versions: [
        { version: 2, weight: 50 },
        { version: 1, weight: 50 },
      ],
    })
    for (const user of ['ann', 'bob', 'cy']) {
      const res = await fetch(`${dev.url}/api/prompts/team.roll/render`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-user-id': user },
        body: '{}',
      })
      expect(res.headers.get('x-prompt-version')).toBe(String(versionAt(rollout, bucketOf('team.roll', user))))
    }
    const shown = await cli(['rollout', 'team.roll', ...api()])
    expect(shown.stdout).toBe(started.stdout)
    const ended = await cli(['rollout', 'team.roll', '--end', ...api()])
    expect(ended.stdout).toBe('prompt team.roll (the base): rollout ended; its newest version serves\n')
    const gone = await cli(['rollout', 'team.roll', ...api()])
    expect(gone.code).toBe(1)
    expect(gone.stderr).toMatch(/^rollout: NOT_FOUND: prompt 'team.roll' has no rollout/m)
  })

  it('lists three versions newest first, and rolls back to the first as version 4', async () => {
    for (const text of ['api one', 'api two', 'api three']) {
      const published = await cli(['publish', await promptFiles({ 'team.api3': text }), ...api()])
      expect(published.code, published.stderr).toBe(0)
    }
    const listed = await cli(['versions', 'prompts', 'team.api3', ...api()])
    expect(rows(listed.stdout).map(([v]) => v)).toEqual([3, 2, 1])

    // --api names the deployment, the token coming from ADMIN_TOKEN.
    const rolled = await cli(['rollback', 'prompts', 'team.api3', '--to', '1', '--api', dev.url], { ADMIN_TOKEN })
    expect(rolled.stderr).toBe('')
    expect(rolled.code).toBe(0)
    expect(rolled.stdout).toMatch(/version 4 at shenma:templates:team:api3 is version 1 again/)
    const prompt = await fetch(`${dev.url}/api/prompts/team.api3`)
    expect(prompt.headers.get('x-prompt-version')).toBe('4')
    expect(((await prompt.json()) as { data: { prompt: string } }).data.prompt).toBe('api one')
  })

  it("promotes: --dry-run prints the diff and writes nothing; then the label's records reach the base", async () => {
    const before = await snapshot(served)
    const dry = await cli(['promote', '--from', 'feat-api', '--dry-run', ...api()])
    expect(dry.stderr).toBe('')
    expect(dry.code).toBe(0)
    expect(dry.stdout).toMatch(/^\+ prompts team\.api \(shenma:templates:team:api\)\n\+\{\n/m)
    expect(dry.stdout).toMatch(/^\+ {2}"prompt": "from the branch"$/m)
    expect(dry.stdout).toMatch(/would change 1 record of the base; nothing was written/)
    expect(await snapshot(served)).toEqual(before)

    const renderOf = async (query: string) => {
      const res = await fetch(`${dev.url}/api/prompts/team.api/render${query}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
      return { label: res.headers.get('x-prompt-label'), body: (await res.json()) as { rendered_prompt?: string } }
    }
    const labelled = await renderOf('?label=feat-api')
    expect(labelled).toEqual({ label: 'feat-api', body: { status: 'success', rendered_prompt: 'from the branch' } })
    const promoted = await cli(['promote', '--from', 'feat-api', ...api()])
    expect(promoted.code, promoted.stderr).toBe(0)
    expect(promoted.stdout).toMatch(/promoted label feat-api onto the base: 1 record changed/)
    expect(await served.scan('shenma:labels:feat-api:')).toEqual([])
    // The base now renders what the label rendered.
    expect(await renderOf('')).toEqual({ label: null, body: labelled.body })
  })

  it("lists the service's audit trail newest first, filtered and paged", async () => {
    for (const text of ['audit one', 'audit two']) {
      const published = await cli(['publish', await promptFiles({ 'team.audited': text }), ...api()])
      expect(published.code, published.stderr).toBe(0)
    }
    const listed = await cli(['audit', '--id', 'team.audited', ...api()])
    expect(listed.stderr).toBe('')
    expect(listed.code).toBe(0)
    const lines = listed.stdout.trimEnd().split('\n')
    expect(lines[0]).toMatch(/^at\s+by\s+action\s+kind\s+id\s+label\s+versions$/)
    expect(lines.slice(1).map((line) => line.split(/\s+/).slice(1))).toEqual([
      ['admin', 'write', 'prompts', 'team.audited', '(base)', '2'],
      ['admin', 'write', 'prompts', 'team.audited', '(base)', '1'],
    ])
    // A page of one names the cursor of the next, which lists the older change as JSON.
    const first = await cli(['audit', '--id', 'team.audited', '--limit', '1', '--json', ...api()])
    const cursor = /^older changes: audit --cursor (\S+)$/m.exec(first.stderr)?.[1]
    expect(cursor, first.stderr).toBeDefined()
    expect(JSON.parse(first.stdout)).toMatchObject({ action: 'write', versions: [2] })
    const older = await cli(['audit', '--id', 'team.audited', '--json', '--cursor', cursor as string, ...api()])
    expect(
      older.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as unknown),
    ).toMatchObject([{ action: 'write', versions: [1] }])
    const misused = await cli(['audit', '--action', 'rename', ...api()])
    expect(misused.code).toBe(2)
    expect(misused.stderr).toMatch(/--action is one of write, delete, promote/)
  })

  it('publishes the same files twice as one version through the API: the service answers unchanged', async () => {
    const dir = await promptFiles({ 'team.apitwice': 'api same' })
    expect((await cli(['publish', dir, '--label', 'feat-twice', ...api()])).code).toBe(0)
    const again = await cli(['publish', dir, '--label', 'feat-twice', ...api()])
    expect(again.stderr).toBe('')
    expect(again.code).toBe(0)
    expect(again.stdout).toMatch(/^unchanged shenma:labels:feat-twice:templates:team:apitwice +version 1 +from /m)
    expect(again.stdout).toMatch(/^published 0 records in label feat-twice to .*; 1 record unchanged$/m)
    const listed = await cli(['versions', 'prompts', 'team.apitwice', '--label', 'feat-twice', ...api()])
    expect(rows(listed.stdout)).toEqual([[1, '', 'no']])
  })

  it("renders a label's prompt with --label, a version with --version, and explains it with --explain", async () => {
    for (const text of ['base one {{.args.code}}', 'base two {{.args.code}}']) {
      expect((await cli(['publish', await promptFiles({ 'team.shown': text }), ...api()])).code).toBe(0)
    }
    const label = await promptFiles({ 'team.shown': 'label text {{.args.code}} {{.vscode.programming_language}}' })
    expect((await cli(['publish', label, '--label', 'feat-shown', ...api()])).code).toBe(0)
    const render = (...options: string[]) =>
      cli(['render', 'team.shown', '--args', '{"code": "c"}', '--url', dev.url, ...options])

    expect((await render()).stdout).toBe('base two c\n')
    const labelled = await render('--label', 'feat-shown')
    expect(labelled.stderr).toBe('')
    expect(labelled.code).toBe(0)
    expect(labelled.stdout).toBe('label text c go\n')
    const first = await render('--version', '1')
    expect(first.code, first.stderr).toBe(0)
    expect(first.stdout).toBe('base one c\n')
    const missing = await render('--version', '9')
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^VERSION_NOT_FOUND: /m)

    const explained = await render('--label', 'feat-shown', '--explain')
    expect(explained.code).toBe(0)
    expect(explained.stdout).toBe('label text c go\n')
    const lines = explained.stderr.split('\n')
    expect(lines[0]).toBe(`explain: version 1 of label feat-shown, rendered by ${dev.url}`)
    expect(lines).toContain('  reads: args.code, vscode.programming_language')
    expect(lines).toContain('  tools: (none)')
    expect(lines.some((line) => /^ {2}time: \d+ ms \(redis \d+ ms, tools \d+ ms, render \d+ ms\)$/.test(line))).toBe(
      true,
    )
  })

  it('fails with the API error, exit 1, on a wrong admin token, and says which records were written', async () => {
    const wrong = await cli(['publish', await promptFiles({ 'team.x': 'x' }), '--url', dev.url, '--admin-token', 'no'])
    expect(wrong.code).toBe(1)
    expect(wrong.stderr).toMatch(/^publish failed at shenma:templates:team:x: UNAUTHORIZED: /m)
    expect(wrong.stderr).toMatch(/0 records before it were written \(through the API each record is its own write/)
    expect((await fetch(`${dev.url}/api/prompts/team.x`)).status).toBe(404)
  })
})

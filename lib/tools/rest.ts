import type { RestToolRecord } from '../catalog'
import { cancelBody, decodeText, guardedFetch, parseJson, readBody, statusLine } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { ArgumentError, ToolError } from './arguments'
import type { Params } from './arguments'

/** A request a REST tool's definition and parameters make. */
export interface RestRequest {
  method: string
  url: URL
  body: string | undefined
}

const PLACEHOLDER = /\{([^{}]+)\}/g

/**
 * GET and DELETE send the parameters as a query string, POST and PUT as a
 * JSON body; `{name}` placeholders in the URL's path take their parameter,
 * URL-encoded, which then goes nowhere else. A relative URL is appended
 * to `base`. A value cannot move the request elsewhere on its host: one
 * that is a dot segment (`.`, `..`), or that makes the path leave the
 * URL's fixed part (all before its first placeholder) or a relative URL
 * leave the base URL's path, is refused.
 */
export function restRequest(spec: RestToolRecord['restful'], params: Params, base: string | undefined): RestRequest {
  const method = spec.method ?? 'GET'
  const rest: Params = { ...params }
  const placed = new Set<string>()
  const path = spec.url.replace(PLACEHOLDER, (_, name: string) => {
    if (!Object.hasOwn(rest, name) || rest[name] === null) throw new ArgumentError(`needs '${name}' for its URL`)
    const value = rest[name]
    placed.add(name)
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    if (text === '.' || text === '..') throw new ArgumentError(`'${name}' is '${text}', a dot segment in its URL`)
    return encodeURIComponent(text)
  })
  for (const name of placed) delete rest[name]
  const url = resolve(path, base)
  checkPathStays(url, spec.url, base)
  if (method === 'GET' || method === 'DELETE') {
    for (const [name, value] of Object.entries(rest)) {
      if (value === null || value === undefined) continue
      for (const item of Array.isArray(value) ? value : [value]) {
        url.searchParams.append(name, typeof item === 'string' ? item : JSON.stringify(item))
      }
    }
    return { method, url, body: undefined }
  }
  return { method, url, body: JSON.stringify(rest) }
}

/**
 * Refuses a URL whose path left its template's fixed part, or, relative,
 * the base URL's path: where the URL parser's dot-segment rules took it.
 */
function checkPathStays(url: URL, template: string, base: string | undefined): void {
  const first = template.search(PLACEHOLDER)
  const fixed = first < 0 ? undefined : pathOf(template.slice(0, first), base)
  const root = isAbsolute(template) ? undefined : pathOf('', base)
  for (const prefix of [fixed, root]) {
    if (prefix !== undefined && !url.pathname.startsWith(prefix)) {
      throw new ArgumentError(`its URL's path would leave ${prefix}`)
    }
  }
}

/** The path a URL's leading part names (its last segment may be partial), or undefined when it names none. */
function pathOf(leading: string, base: string | undefined): string | undefined {
  // A prefix that ends inside the scheme or the host names no path; the allow-list judges the host.
  if (isAbsolute(leading) && !/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*\//i.test(leading)) return undefined
  return resolve(leading, base).pathname
}

function isAbsolute(url: string): boolean {
  return /^[a-z][a-z0-9+.-]*:/i.test(url)
}

/**
 * A tool's URL: absolute as it is, or a path appended to the base URL, which
 * may carry a path of its own (`https://svc/api/v1` + `/translate` is
 * `https://svc/api/v1/translate`).
 */
export function resolve(url: string, base: string | undefined): URL {
  if (isAbsolute(url)) return new URL(url)
  if (!base) {
    throw new Error(
      `its URL ${url} is relative and no base URL is configured (TOOLS_BASE_URL or modules.<module>.base_url)`,
    )
  }
  return new URL(base.replace(/\/+$/, '') + (url.startsWith('/') ? url : `/${url}`))
}

/**
 * Calls a REST tool: its JSON answer as a value, any other answer as a
 * string. An error answer is told by its status line alone.
 */
export async function callRest(
  request: RestRequest,
  policy: EgressPolicy,
  limit: ByteLimit,
  signal: AbortSignal,
): Promise<unknown> {
  const headers = new Headers({ accept: 'application/json, text/plain;q=0.9, */*;q=0.1' })
  if (request.body !== undefined) headers.set('content-type', 'application/json')
  const init = { method: request.method, headers, body: request.body, signal }
  const response = await guardedFetch(request.url, init, policy)
  if (!response.ok) {
    await cancelBody(response)
    throw new ToolError(`answered ${statusLine(response)}`)
  }
  const text = decodeText(await readBody(response, limit, signal))
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return text
  try {
    return parseJson(text)
  } catch {
    throw new Error('answered JSON that does not parse')
  }
}

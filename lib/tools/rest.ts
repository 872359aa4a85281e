import type { RestToolRecord } from '../catalog'
import { cancelBody, decodeText, guardedFetch, parseJson, readBody, statusLine } from '../egress'
import type { ByteLimit, EgressPolicy } from '../egress'
import { setOwn } from '../json'
import { ArgumentError, PLACEHOLDER, ToolError } from './arguments'
import type { Params } from './arguments'

/** A request a REST tool's definition and parameters make. */
export interface RestRequest {
  method: string
  url: URL
  body: string | undefined
}

/**
 * The characters of a tool's URL at most, query included: 8 KiB, what
 * common servers accept in a request line. A longer one would be refused
 * by the server anyway, after building it cost time in proportion.
 */
export const MAX_URL_LENGTH = 8192

/** The query parameters a GET or DELETE request sends at most (an array's items each count). */
export const MAX_QUERY_PARAMETERS = 1024

/**
 * GET and DELETE send the parameters as a query string, POST and PUT as a
 * JSON body; `{name}` placeholders in the URL's path take their parameter,
 * URL-encoded, which then goes nowhere else. Of the other parameters, only
 * those in `declared` are sent (all when it is undefined: the tool's
 * schema takes parameters it does not name). A relative URL is appended
 * to `base`. A value cannot move the request elsewhere on its host: one
 * that is a dot segment (`.`, `..`), or that makes the path leave the
 * URL's fixed part (all before its first placeholder) or a relative URL
 * leave the base URL's path, is refused. So is a URL longer than
 * MAX_URL_LENGTH or a query of more than MAX_QUERY_PARAMETERS, before it
 * is built.
 */
export function restRequest(
  spec: RestToolRecord['restful'],
  params: Params,
  base: string | undefined,
  declared: ReadonlySet<string> | undefined,
): RestRequest {
  const method = spec.method ?? 'GET'
  const placed = new Set<string>()
  const path = spec.url.replace(PLACEHOLDER, (_, name: string) => {
    if (!Object.hasOwn(params, name) || params[name] === null) throw new ArgumentError(`needs '${name}' for its URL`)
    const value = params[name]
    placed.add(name)
    const text = typeof value === 'string' ? value : JSON.stringify(value)
    if (text === '.' || text === '..') throw new ArgumentError(`'${name}' is '${text}', a dot segment in its URL`)
    if (text.length > MAX_URL_LENGTH) throw tooLong()
    return encodeURIComponent(text)
  })
  const rest: Params = {}
  for (const [name, value] of Object.entries(params)) {
    if (!placed.has(name) && (declared === undefined || declared.has(name))) setOwn(rest, name, value)
  }
  const url = resolve(path, base)
  if (url.href.length > MAX_URL_LENGTH) throw tooLong()
  checkPathStays(url, spec.url, base)
  if (method === 'GET' || method === 'DELETE') {
    const query = queryOf(url, rest)
    // Untouched when nothing is added: serialising parses the URL's own query into form encoding.
    if (query !== undefined) url.search = query
    if (url.href.length > MAX_URL_LENGTH) throw tooLong()
    return { method, url, body: undefined }
  }
  return { method, url, body: JSON.stringify(rest) }
}

/**
 * `url`'s query with the parameters appended (undefined: none to append), built apart from the URL:
 * appending to `url.searchParams` serialises the whole query again at each
 * parameter, which is quadratic. Each pair's text counts toward the URL's
 * length before it is encoded (encoding only lengthens it).
 */
function queryOf(url: URL, params: Params): string | undefined {
  const query = new URLSearchParams(url.search)
  let length = url.href.length
  let count = 0
  for (const [name, value] of Object.entries(params)) {
    if (value === null || value === undefined) continue
    for (const item of Array.isArray(value) ? value : [value]) {
      if (++count > MAX_QUERY_PARAMETERS) {
        throw new ArgumentError(`would send more than ${MAX_QUERY_PARAMETERS} query parameters`)
      }
      const text = typeof item === 'string' ? item : JSON.stringify(item)
      length += name.length + text.length + 2
      if (length > MAX_URL_LENGTH) throw tooLong()
      query.append(name, text)
    }
  }
  return count === 0 ? undefined : query.toString()
}

function tooLong(): ArgumentError {
  return new ArgumentError(`its URL would be longer than ${MAX_URL_LENGTH} characters`)
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
 * Calls a REST tool: its JSON answer as a value (unless `parse` is false:
 * then as its text, when only the text is wanted), any other answer as a
 * string. An error answer is told by its status line alone.
 */
export async function callRest(
  request: RestRequest,
  policy: EgressPolicy,
  limit: ByteLimit,
  signal: AbortSignal,
  parse = true,
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
  if (!parse || !/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return text
  try {
    return parseJson(text)
  } catch {
    throw new Error('answered JSON that does not parse')
  }
}

import type { Tool } from '../catalog'
import { ArgumentError, ToolError } from './arguments'
import type { Params } from './arguments'

/** A request a REST tool's definition and parameters make. */
export interface RestRequest {
  method: string
  url: URL
  body: string | undefined
}

/**
 * GET and DELETE send the parameters as a query string, POST and PUT as a
 * JSON body; `{name}` placeholders in the URL's path take their parameter,
 * URL-encoded, which then goes nowhere else. A relative URL is appended
 * to `base`.
 */
export function restRequest(tool: Tool, params: Params, base: string | undefined): RestRequest {
  const spec = tool.record.restful as NonNullable<Tool['record']['restful']>
  const method = spec.method ?? 'GET'
  const rest: Params = { ...params }
  const path = spec.url.replace(/\{([^{}]+)\}/g, (_, name: string) => {
    if (!Object.hasOwn(rest, name) || rest[name] === null) throw new ArgumentError(`needs '${name}' for its URL`)
    const value = rest[name]
    delete rest[name]
    return encodeURIComponent(typeof value === 'string' ? value : JSON.stringify(value))
  })
  const url = resolve(path, base)
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
 * A tool's URL: absolute as it is, or a path appended to the base URL, which
 * may carry a path of its own (`https://svc/api/v1` + `/translate` is
 * `https://svc/api/v1/translate`).
 */
export function resolve(url: string, base: string | undefined): URL {
  if (/^[a-z][a-z0-9+.-]*:/i.test(url)) return new URL(url)
  if (!base) {
    throw new Error(
      `its URL ${url} is relative and no base URL is configured (TOOLS_BASE_URL or modules.<module>.base_url)`,
    )
  }
  return new URL(base.replace(/\/+$/, '') + (url.startsWith('/') ? url : `/${url}`))
}

/** Calls a REST tool: its JSON answer as a value, any other answer as a string. */
export async function callRest(request: RestRequest, signal: AbortSignal): Promise<unknown> {
  const headers: Record<string, string> = { accept: 'application/json, text/plain;q=0.9, */*;q=0.1' }
  if (request.body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(request.url, { method: request.method, headers, body: request.body, signal })
  const text = await response.text()
  if (!response.ok) throw new ToolError(`answered HTTP ${response.status}`, text.slice(0, 200))
  if (!/\bjson\b/i.test(response.headers.get('content-type') ?? '')) return text
  try {
    return JSON.parse(text)
  } catch {
    throw new Error('answered JSON that does not parse')
  }
}

import { cancelBody } from './bounded-read'

/** Redirects one request may follow: enough for a moved service, too few for a loop to cost much. */
const MAX_REDIRECTS = 3

const REDIRECTS = new Set([301, 302, 303, 307, 308])

/** Where a request may go; one policy for the first URL and every redirect after it. */
export interface EgressPolicy {
  /** TOOL_ALLOWED_HOSTS: when set, the only hosts (hostname or host:port) a request may reach. */
  allowedHosts: readonly string[] | undefined
}

/** A request refused before it was sent: a reason worded for a warning. */
export class EgressError extends Error {}

/** Refuses a URL the policy does not allow: a scheme other than http(s), or a host not listed. */
export function checkTarget(url: URL, policy: EgressPolicy): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressError(`its URL's scheme ${url.protocol} is not http: or https:`)
  }
  const allowed = policy.allowedHosts
  if (allowed && !allowed.includes(url.hostname) && !allowed.includes(`${url.hostname}:${portOf(url)}`)) {
    throw new EgressError(`its host ${url.host} is not in TOOL_ALLOWED_HOSTS`)
  }
}

/** The port a URL reaches, the scheme's default included: `api.x:443` allows `https://api.x`. */
function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80')
}

/** What guardedFetch sends: a body it may have to send again, so text or bytes, never a stream. */
interface GuardedInit {
  method: string
  headers: Headers
  body: string | Uint8Array | undefined
  signal: AbortSignal
}

/**
 * fetch, with redirects followed by hand rather than by the runtime: at most
 * MAX_REDIRECTS, each target checked as the first URL was (a redirect is
 * where an allowed host would send a request elsewhere), and a redirect that
 * changes the method (303; 301 and 302 of a POST) or sends the body again
 * (307 and 308) followed only within the origin, so a body never leaves it.
 * A refused redirect throws an EgressError, and nothing more is sent. The
 * answer is never a redirect, except one without a Location, which is an
 * answer like any other.
 */
export async function guardedFetch(url: URL, init: GuardedInit, policy: EgressPolicy): Promise<Response> {
  checkTarget(url, policy)
  let { method, body } = init
  const headers = new Headers(init.headers)
  let current = url
  for (let hop = 0; ; hop++) {
    const response = await fetch(current, { method, headers, body, signal: init.signal, redirect: 'manual' })
    const location = REDIRECTS.has(response.status) ? response.headers.get('location') : null
    if (location === null) return response
    await cancelBody(response)
    if (hop === MAX_REDIRECTS) throw new EgressError(`was redirected more than ${MAX_REDIRECTS} times`)
    const next = parseUrl(location, current)
    if (!next) throw new EgressError(`was redirected (HTTP ${response.status}) to a URL that does not parse`)
    try {
      checkTarget(next, policy)
    } catch (e) {
      throw new EgressError(`was redirected (HTTP ${response.status}) elsewhere, and ${(e as Error).message}`)
    }
    const changesMethod =
      (response.status === 303 && method !== 'GET' && method !== 'HEAD') ||
      ((response.status === 301 || response.status === 302) && method === 'POST')
    // What a GET asks another origin is harmless; a POST, PUT or DELETE again, with a body or not, is not.
    const repeatsAction = !changesMethod && method !== 'GET' && method !== 'HEAD'
    const crossOrigin = next.origin !== current.origin
    if ((changesMethod || repeatsAction) && crossOrigin) {
      const what = changesMethod ? `turns its ${method} into a GET` : `would send its ${method} again`
      throw new EgressError(`was redirected (HTTP ${response.status}) to another origin by a redirect that ${what}`)
    }
    if (changesMethod) {
      method = 'GET'
      body = undefined
      headers.delete('content-type')
    }
    // Headers are the first origin's business (an MCP session id, say): another origin gets only what it asked for.
    if (crossOrigin) for (const name of [...headers.keys()]) if (name !== 'accept') headers.delete(name)
    current = next
  }
}

function parseUrl(location: string, base: URL): URL | undefined {
  try {
    return new URL(location, base)
  } catch {
    return undefined
  }
}

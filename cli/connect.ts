import type { Backend } from './backend'
import { RedisBackend } from './direct'
import type { Io, Options } from './io'
import { ApiBackend } from './remote'
import { fileSettings } from './render-files'
import { describeError } from '../lib/log'

/** How a command can be pointed somewhere, for its misuse message. */
export const CONNECT_HELP =
  'give --url and --token of Upstash (or set UPSTASH_REDIS_REST_URL and UPSTASH_REDIS_REST_TOKEN), ' +
  "or a deployment's --api URL (or --url URL with --admin-token TOKEN)"

/**
 * Where a command goes, from its options and the environment, or why it
 * cannot tell (a misuse):
 * - `--api URL`, or `--admin-token TOKEN` (with `--url`, else AI_PROMPT_SHELL_URL):
 *   the deployment's write API, the token defaulting to ADMIN_TOKEN (then API_TOKEN, which may read);
 * - `--url` without `--token`, when ADMIN_TOKEN is set: the deployment at that URL too,
 *   unless UPSTASH_REDIS_REST_TOKEN is set as well (then it cannot tell);
 * - otherwise Upstash: `--url` and `--token`, defaulting to UPSTASH_REDIS_REST_URL and _TOKEN;
 * - with none of these given, AI_PROMPT_SHELL_URL and ADMIN_TOKEN name a deployment.
 */
export function connect(values: Options, io: Io): Backend | { misuse: string } {
  const env = io.env
  const adminToken = values['admin-token'] ?? env.ADMIN_TOKEN
  const readToken = adminToken || env.API_TOKEN || undefined
  try {
    if (values.api !== undefined || values['admin-token'] !== undefined) {
      if (values.token !== undefined) {
        return { misuse: '--token is the Upstash token: through the API, give --admin-token (or set ADMIN_TOKEN)' }
      }
      if (values.api !== undefined && values.url !== undefined) return { misuse: 'give --api or --url, not both' }
      const url = values.api ?? values.url ?? env.AI_PROMPT_SHELL_URL
      if (!url) return { misuse: '--admin-token needs the deployment: give --url URL (or set AI_PROMPT_SHELL_URL)' }
      return new ApiBackend(url, readToken)
    }
    if (values.url !== undefined && values.token === undefined && env.ADMIN_TOKEN) {
      if (env.UPSTASH_REDIS_REST_TOKEN) {
        return {
          misuse:
            'both ADMIN_TOKEN and UPSTASH_REDIS_REST_TOKEN are set: say which --url is, with --admin-token or --token',
        }
      }
      return new ApiBackend(values.url, readToken)
    }
    const url = values.url ?? env.UPSTASH_REDIS_REST_URL
    const token = values.token ?? env.UPSTASH_REDIS_REST_TOKEN
    if (url && token) return new RedisBackend(url, token, fileSettings(io))
    if (values.url === undefined && values.token === undefined && env.AI_PROMPT_SHELL_URL && env.ADMIN_TOKEN) {
      return new ApiBackend(env.AI_PROMPT_SHELL_URL, env.ADMIN_TOKEN)
    }
    return { misuse: CONNECT_HELP }
  } catch (e) {
    return { misuse: describeError(e) }
  }
}

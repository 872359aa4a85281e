/**
 * The service's own secrets, kept out of what it says. An upstream (an LLM
 * provider, a tool, an MCP server, Redis) may echo the request it was sent,
 * headers included, in its error; whatever quotes an upstream's words (an
 * error answer, a warning, a log line, a stream's `error` event) passes
 * them through `redact`, which replaces every configured secret, and the
 * forms a reply could carry it in, with REDACTED.
 *
 * The secrets are the request's Worker's (lib/settings.ts's `secrets`): the
 * request's scope (`withSecretsOf`, opened by the HTTP layer) holds them, so that code deep
 * in a tool call redacts without being handed the configuration.
 */
import { AsyncLocalStorage } from 'node:async_hooks'

/** What a secret is replaced with. */
export const REDACTED = '[redacted]'

/**
 * A secret shorter than this is not looked for: replacing every `t` of a
 * message would make it unreadable, and a token that short protects nothing.
 */
const MIN_SECRET_CHARS = 8

/** The forms of a configuration's secrets, longest first. */
interface Secrets {
  forms: string[]
  /** The longest form's length: how far past a window's end a secret cut by it can reach. */
  longest: number
  /** The shortest form's length: a shorter text holds none (most of a log line's strings). */
  shortest: number
}

const NONE: Secrets = { forms: [], longest: 0, shortest: Infinity }
const scope = new AsyncLocalStorage<Secrets>()
const known = new WeakMap<object, Secrets>()
const byValues = new Map<string, Secrets>()
/** How many configurations' secrets are kept by their values. */
const KEPT_CONFIGURATIONS = 8

/** Runs `fn` with `secrets` (their values) as those `redact` removes, within `fn` and whatever it starts. */
export function withSecretsOf<T>(secrets: readonly string[], fn: () => T): T {
  return scope.run(secretsOf(secrets), fn)
}

/** `text` with every secret of the current scope, in every form looked for, replaced by REDACTED. */
export function redact(text: string): string {
  const { forms, shortest } = scope.getStore() ?? NONE
  if (text.length < shortest) return text
  let out = text
  // Longest first, so that a secret holding another is replaced whole.
  for (const form of forms) if (out.includes(form)) out = out.replaceAll(form, REDACTED)
  return out
}

/**
 * The start of `text` redacted, for a caller that keeps its first `chars`
 * characters: only a window of them is searched (a megabyte it drops is
 * not), and `cut` says that the text went on past it. A secret the window
 * cuts lies past `chars`, in what the caller drops.
 */
export function redactedHead(text: string, chars: number): { head: string; cut: boolean } {
  const window = chars + (scope.getStore() ?? NONE).longest
  const cut = text.length > window
  return { head: redact(cut ? text.slice(0, window) : text), cut }
}

/** The forms of `values` looked for (each at least MIN_SECRET_CHARS long), made once per configuration. */
function secretsOf(values: readonly string[]): Secrets {
  const cached = known.get(values)
  if (cached) return cached
  // workerd may hand each request an `env` of its own: the same secrets are found by their values too.
  const key = values.join('\n')
  let secrets = byValues.get(key)
  if (!secrets) {
    const forms = new Set<string>()
    for (const value of values) if (value.length >= MIN_SECRET_CHARS) for (const f of formsOf(value)) forms.add(f)
    const sorted = [...forms].sort((a, b) => b.length - a.length)
    secrets = { forms: sorted, longest: sorted[0]?.length ?? 0, shortest: sorted.at(-1)?.length ?? Infinity }
    // A Worker has one configuration; a test run a few. The oldest goes first past a handful.
    if (byValues.size >= KEPT_CONFIGURATIONS) byValues.delete(byValues.keys().next().value as string)
    byValues.set(key, secrets)
  }
  known.set(values, secrets)
  return secrets
}

/**
 * A secret as an echo may carry it: as it is (which covers `Bearer <key>`,
 * `x-api-key: <key>`), percent-encoded (a query string), escaped in JSON,
 * and inside base64 (a `Basic` header, a token wrapping it) at each of the
 * three alignments it can have there, in both alphabets. A base64 form
 * keeps only the characters made of the secret's bits alone, so up to two
 * characters at each end, a byte's worth of the secret, can remain.
 */
function formsOf(secret: string): string[] {
  const forms = [secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]
  const bytes = new TextEncoder().encode(secret)
  for (let offset = 0; offset < 3; offset++) {
    const padded = new Uint8Array(offset + bytes.length)
    padded.set(bytes, offset)
    const encoded = btoa(Array.from(padded, (b) => String.fromCharCode(b)).join(''))
    // Character j holds bits 6j to 6j+6 of the bytes; the secret's are bits 8·offset to 8·(offset+length).
    const first = Math.ceil((8 * offset) / 6)
    const last = Math.floor((8 * (offset + bytes.length) - 6) / 6)
    const inner = encoded.slice(first, last + 1)
    if (inner.length >= MIN_SECRET_CHARS) forms.push(inner, inner.replaceAll('+', '-').replaceAll('/', '_'))
  }
  return forms
}

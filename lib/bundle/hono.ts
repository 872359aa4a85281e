import { HonoBase } from 'hono/hono-base'
import type { HonoOptions } from 'hono/hono-base'
import { TrieRouter } from 'hono/router/trie-router'
import type { Env, Schema } from 'hono/types'

/**
 * What `hono` resolves to in the Worker bundle (wrangler.toml `[alias]`):
 * its `Hono` with a TrieRouter alone. Hono's default, a SmartRouter that
 * tries a RegExpRouter and falls back to the TrieRouter, matches the same
 * routes with the same handlers and params; for a couple of dozen routes the
 * RegExpRouter's speed is not worth its weight (about 2 KiB gzip), and
 * lib/http/handlers.ts uses the TrieRouter already.
 */
export class Hono<E extends Env = Env, S extends Schema = {}, BasePath extends string = '/'> extends HonoBase<
  E,
  S,
  BasePath
> {
  constructor(options: HonoOptions<E> = {}) {
    super(options)
    this.router = options.router ?? new TrieRouter()
  }
}

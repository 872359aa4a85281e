/**
 * A Worker of a few lines, to measure what `wrangler dev` itself costs a
 * shape of load (bench/hostile-2.ts): `GET /health` answers at once, and
 * `GET /fetch?url=U&n=N` fetches U N times, one after the other, reading each
 * answer whole. What a request meets while this Worker is under a row's
 * shape of load is the dev server's doing, not ours.
 */
export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url)
    if (url.pathname !== '/fetch') return new Response('ok')
    const target = url.searchParams.get('url') ?? ''
    const times = Number(url.searchParams.get('n') ?? '1')
    let bytes = 0
    for (let i = 0; i < times; i++) bytes += (await (await fetch(target)).arrayBuffer()).byteLength
    return new Response(String(bytes))
  },
}

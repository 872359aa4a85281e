// The service's API from the page: JSON in and out, and the bearer token.
// A 401 from /api asks for the token once (a form, not window.prompt), keeps
// it in this tab's sessionStorage and sends the request again; requests that
// meet the 401 meanwhile wait for the same answer.
import { $ } from './dom.js'
import { page } from './page.js'

const KEY = 'ai-prompt-shell.api-token'
/** The pending question, shared by every request that met a 401. */
let asking = null

const token = () => sessionStorage.getItem(KEY)

/**
 * The path as `label` sees the records (a branch's prompts): `?label=` added
 * to an /api path. `label` undefined is the page's (page.view.label, first
 * the URL's `?label=`); null is the base.
 */
function labelled(path, label = page.view.label) {
  if (label === null || label === undefined || !path.startsWith('/api/')) return path
  const url = new URL(path, location.origin)
  url.searchParams.set('label', label)
  return url.pathname + url.search
}

/** Resolves once there is a token other than `refused` (the one the 401 answered). */
function newToken(refused) {
  if (token() !== refused) return Promise.resolve()
  asking ??= new Promise((resolve) => {
    const form = $('token-form')
    const input = $('token-input')
    $('token-note').textContent = refused ? 'That token was refused.' : ''
    form.hidden = false
    input.value = ''
    input.focus()
    form.addEventListener(
      'submit',
      (event) => {
        event.preventDefault()
        sessionStorage.setItem(KEY, input.value.trim())
        form.hidden = true
        asking = null
        resolve()
      },
      { once: true },
    )
  })
  return asking
}

/**
 * fetch() of the service, with the token when there is one; `body` is sent as
 * JSON; an /api path is read as `label` sees it (see labelled). With `token`
 * given (the admin token of a write), that one is sent and a 401 is answered
 * as it is: it is not the API token to ask for.
 */
export async function api(path, { method = 'GET', body, signal, token: given, label } = {}) {
  for (;;) {
    const used = given ?? token()
    const headers = {}
    if (body !== undefined) headers['content-type'] = 'application/json'
    if (used) headers.authorization = `Bearer ${used}`
    const res = await fetch(labelled(path, label), {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      signal,
    })
    if (res.status !== 401 || !path.startsWith('/api/') || given !== undefined) return res
    await newToken(used)
    signal?.throwIfAborted()
  }
}

/** A response's JSON; an error body of the service's shape when it is not JSON. */
export async function readJson(res) {
  const text = await res.text()
  try {
    return JSON.parse(text)
  } catch {
    return { status: 'error', code: `HTTP_${res.status}`, message: text.slice(0, 500) || res.statusText }
  }
}

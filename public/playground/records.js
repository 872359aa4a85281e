// Writing a prompt back from the page: the record that keeps it, read as
// stored, changed and PUT with the admin token as a new version. The tests
// panel adds a case this way, the versions panel saves the draft.
import { api, readJson } from './api.js'

/** Where the admin token is kept, for this tab only, as the API token is. */
const ADMIN_KEY = 'ai-prompt-shell.admin-token'
/** Every admin token input of the page: typing in one shows the same token in the others. */
const tokenInputs = new Set()

/** Makes `input` an admin token input: filled from this tab's token, and kept in step with the others. */
export function adminTokenInput(input) {
  tokenInputs.add(input)
  input.value = sessionStorage.getItem(ADMIN_KEY) ?? ''
  input.addEventListener('input', () => {
    for (const other of tokenInputs) if (other !== input) other.value = input.value
  })
  return input
}

/** The admin token typed (trimmed; '' when none), kept in this tab for the next write. */
export function adminToken(input) {
  const token = input.value.trim()
  if (token) sessionStorage.setItem(ADMIN_KEY, token)
  return token
}

/**
 * Writes the record that keeps `prompt` as `label` sees it (undefined: the
 * page's label, null: the base), its prompt entry replaced by `change(entry)`,
 * with `message`: `{version, where}` (`where` names the record and its label)
 * or `{error}` (an error body).
 */
export async function writePrompt(prompt, change, { token, label, message }) {
  const write = await keeping(prompt, change, token, label)
  if (write.error) return write
  const res = await api(`${write.path}?message=${encodeURIComponent(message)}`, {
    method: 'PUT',
    body: write.record,
    token,
    label,
  })
  const answer = await readJson(res)
  if (!res.ok) return { error: answer }
  const { version, label: written } = answer.data
  return { version, where: `${write.path.slice('/api/'.length)}${written ? ` in label ${written}` : ''}` }
}

/**
 * The record that keeps the prompt, as stored, with its entry changed:
 * `{path, record}` to PUT, or `{error}`. A direct prompt's record is its
 * newest version; an extension's prompt is written as its extension, found as
 * the service finds it (the id split at each dot in turn).
 */
async function keeping(prompt, change, token, label) {
  if (prompt.origin === 'direct') {
    const path = `/api/prompts/${encodeURIComponent(prompt.id)}`
    const stored = await newestRecord(path, token, label)
    return stored.error ? stored : { path, record: change(stored.record) }
  }
  for (let dot = prompt.id.indexOf('.'); dot > 0; dot = prompt.id.indexOf('.', dot + 1)) {
    const path = `/api/extensions/${encodeURIComponent(prompt.id.slice(0, dot))}`
    const res = await api(path, { token, label })
    const body = await readJson(res)
    if (res.status === 404) continue
    if (!res.ok) return { error: body }
    const name = prompt.id.slice(dot + 1)
    const prompts = body.data.contributes?.prompts ?? []
    const at = prompts.findIndex((p) => p.name === name)
    if (at < 0) continue
    const record = {
      ...body.data,
      contributes: { ...body.data.contributes, prompts: prompts.with(at, change(prompts[at])) },
    }
    return { path, record }
  }
  return { error: { code: 'NOT_FOUND', message: `no extension contributes ${prompt.id}` } }
}

/** A direct prompt's record as its newest version stores it (GET .../versions, then that version). */
async function newestRecord(path, token, label) {
  const list = await api(`${path}/versions`, { token, label })
  const versions = await readJson(list)
  if (!list.ok) return { error: versions }
  const newest = versions.data[0]
  if (!newest || newest.deleted)
    return { error: { code: 'NOT_SENT', message: 'the prompt has no stored version to write to' } }
  const one = await api(`${path}/versions/${newest.version}`, { token, label })
  const body = await readJson(one)
  return one.ok ? { record: body.data.value } : { error: body }
}

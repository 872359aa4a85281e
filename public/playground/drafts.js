// Template edits kept per prompt, label and version in this tab
// (sessionStorage): opening another record keeps the draft of the one left,
// and coming back restores it. Bounded: a draft over MAX_DRAFT_CHARS is not
// kept, and past MAX_DRAFTS the least recently kept is dropped.

const PREFIX = 'ai-prompt-shell.draft:'
/** The keys kept, least recently kept first. */
const INDEX = 'ai-prompt-shell.drafts'
const MAX_DRAFT_CHARS = 64 * 1024
const MAX_DRAFTS = 50

function index() {
  try {
    const keys = JSON.parse(sessionStorage.getItem(INDEX) ?? '[]')
    return Array.isArray(keys) ? keys.filter((k) => typeof k === 'string') : []
  } catch {
    return []
  }
}

/** Keeps `fields` ({prompt} or {messages}) as the draft of `key`. */
export function keepDraft(key, fields) {
  const text = JSON.stringify(fields)
  if (text.length > MAX_DRAFT_CHARS) return discardDraft(key)
  const keys = index().filter((k) => k !== key)
  keys.push(key)
  try {
    for (const old of keys.splice(0, Math.max(0, keys.length - MAX_DRAFTS))) sessionStorage.removeItem(PREFIX + old)
    sessionStorage.setItem(PREFIX + key, text)
    sessionStorage.setItem(INDEX, JSON.stringify(keys))
  } catch {
    // Storage full or off: the draft is just not kept.
  }
}

/** The draft kept for `key`, or null. */
export function keptDraft(key) {
  try {
    const fields = JSON.parse(sessionStorage.getItem(PREFIX + key) ?? 'null')
    return fields !== null && typeof fields === 'object' ? fields : null
  } catch {
    return null
  }
}

export function discardDraft(key) {
  if (sessionStorage.getItem(PREFIX + key) === null) return
  sessionStorage.removeItem(PREFIX + key)
  sessionStorage.setItem(INDEX, JSON.stringify(index().filter((k) => k !== key)))
}

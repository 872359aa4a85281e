// The chat panel: the stored prompt sent with these args to the configured
// LLM, its answer streamed in. (Issue 35 makes it chat with the draft,
// multi-turn, with the model's parameters, the steps and usage, and a compare.)
import { api, readJson } from './api.js'
import { $, errorView, fill } from './dom.js'
import { page } from './page.js'

/** The panel in `host` (its markup in index.html); `llm` says whether the service has an LLM configured. */
export function chatPanel(host, { llm }) {
  let abort = null
  $('chat-form').hidden = !llm
  $('chat-note').textContent = llm
    ? 'Sends the stored prompt (not a draft) with these args; the answer streams in.'
    : 'No LLM is configured (LLM_BASE_URL or LLM_ROUTES): chat is off.'

  async function chat(event) {
    event.preventDefault()
    const prompt = page.prompt
    const output = $('chat-output')
    if (!prompt) return (output.textContent = 'Select a prompt first.')
    const { args, error } = page.args()
    if (error) return (output.textContent = error)
    abort?.abort()
    const controller = (abort = new AbortController())
    const body = { args, stream: true }
    const model = $('chat-model').value.trim()
    if (model) body.model = model
    output.textContent = ''
    output.className = 'streaming'
    try {
      const res = await api(`/api/prompts/${encodeURIComponent(prompt.id)}/chat`, {
        method: 'POST',
        body,
        signal: controller.signal,
      })
      if (!res.ok) return fill(output, errorView(await readJson(res)))
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader()
      let buffer = ''
      for (;;) {
        const { value, done } = await reader.read()
        if (done) break
        buffer += value
        const lines = buffer.split('\n')
        buffer = lines.pop()
        for (const line of lines) {
          if (!line.startsWith('data:')) continue
          const data = line.slice(5).trim()
          if (data === '[DONE]') continue
          try {
            const chunk = JSON.parse(data)
            if (chunk.error) output.append(`\n[${chunk.error.code ?? 'error'}: ${chunk.error.message ?? ''}]`)
            const content = chunk.choices?.[0]?.delta?.content
            if (typeof content === 'string') output.append(content)
          } catch {
            // Not an event of ours: skipped.
          }
        }
      }
      output.className = 'done'
    } catch (e) {
      if (!controller.signal.aborted) output.append(`\n[${e.message}]`)
    }
  }

  host.querySelector('#chat-form').addEventListener('submit', chat)
}

// One answer of the chat panel: the stream of POST /api/prompts/{id}/chat
// read into a turn of a column, the text as it comes, then what the service
// adds (`event: step` for each tool round, `parsed`, `summary` with the
// usage), and the latency as measured in this page.
import { readJson } from './api.js'
import { errorView, fill, h } from './dom.js'
import { sseEvents } from './sse.js'

/** Characters of answer text shown; past them the rest is counted, not shown (the page stays usable). */
const MAX_SHOWN_CHARS = 200_000

const ms = (n) => `${Math.round(n)} ms`
const json = (value) => JSON.stringify(value, null, 2)

/**
 * Reads the answer `res` (begun at `started`, a performance.now()) into
 * `turn`, an element of the transcript; resolves to the answer's text, or
 * null when it failed (then `turn` shows why).
 */
export async function readAnswer(res, turn, started, signal) {
  const text = h('pre', { className: 'chat-text' })
  const details = h('div', { className: 'details' })
  const latency = h('p', { className: 'latency note', 'data-role': 'latency' })
  fill(turn, text, details, latency)
  if (!res.ok) {
    turn.dataset.state = 'failed'
    details.append(errorView(await readJson(res)))
    return null
  }
  const answer = { content: '', shownOver: 0, usage: null, firstToken: null, failed: false, ended: false }
  const steps = h(
    'table',
    { className: 'steps', 'data-role': 'steps', hidden: true },
    h('caption', {}, 'Tool calls'),
    stepsHead(),
  )
  details.append(steps)
  try {
    for await (const event of sseEvents(res.body)) {
      const data = event.data ?? {}
      if (event.name === 'done') answer.ended = true
      else if (event.name === 'error') {
        answer.failed = true
        details.append(errorView(data.error ?? { code: 'ERROR', message: String(data) }))
      } else if (event.name === 'step') {
        steps.hidden = false
        steps.append(...stepRows(data.step ?? {}))
      } else if (event.name === 'parsed') details.append(parsedView(data))
      else if (event.name === 'summary') {
        if (data.usage) answer.usage = data.usage
        if (data.stopped) details.append(h('p', { className: 'note warn' }, `The tool loop stopped: ${data.stopped}.`))
      } else if (event.name === undefined && typeof data === 'object') {
        // A provider's usage chunk (include_usage) when no summary says it.
        answer.usage ??= data.usage ?? null
        const content = data.choices?.[0]?.delta?.content
        if (typeof content === 'string' && content !== '') {
          answer.firstToken ??= performance.now()
          answer.content += content
          show(text, answer, content)
        }
      }
    }
  } catch (e) {
    if (signal.aborted) {
      latency.textContent = 'stopped'
      turn.dataset.state = 'stopped'
      return null
    }
    answer.failed = true
    // EVENT_TOO_LARGE (sse.js stopped the reading), else the connection's failure.
    details.append(errorView({ code: e.code ?? 'NETWORK', message: e.message }))
  }
  if (!answer.ended && !answer.failed) {
    // Cut short (the connection lost, a proxy's limit): what came is shown, but it is not the whole answer.
    answer.failed = true
    details.append(errorView({ code: 'STREAM_CUT', message: 'the answer ended before [DONE]' }))
  }
  const done = performance.now()
  if (answer.usage) details.append(usageView(answer.usage, steps.querySelectorAll('tr.call').length))
  latency.textContent = [
    answer.firstToken === null ? 'no text' : `first token ${ms(answer.firstToken - started)}`,
    `total ${ms(done - started)}`,
  ].join(' · ')
  turn.dataset.state = answer.failed ? 'failed' : 'done'
  return answer.failed ? null : answer.content
}

/** Appends a delta as its own text node (cheap for long answers), up to MAX_SHOWN_CHARS. */
function show(text, answer, content) {
  const room = MAX_SHOWN_CHARS - (answer.content.length - content.length)
  if (room >= content.length) return text.append(content)
  if (room > 0) text.append(content.slice(0, room))
  answer.shownOver = answer.content.length - MAX_SHOWN_CHARS
  text.dataset.clipped = `… ${answer.shownOver} more characters not shown`
}

function stepsHead() {
  return h(
    'thead',
    {},
    h(
      'tr',
      {},
      ['step', 'tool', 'arguments', 'result', 'outcome', 'time'].map((name) => h('th', { scope: 'col' }, name)),
    ),
  )
}

/** A tool round's calls as rows: each says its tool, arguments, result, outcome and time as text. */
function stepRows(step) {
  return (step.calls ?? []).map((call) =>
    h(
      'tr',
      { className: `call ${call.outcome}`, 'data-role': 'call' },
      h('td', {}, String(step.step ?? '')),
      h('td', { className: 'tool' }, h('code', {}, call.tool)),
      h('td', {}, h('pre', { className: 'call-arguments' }, clipped(json(call.arguments), call.arguments_chars))),
      h(
        'td',
        {},
        call.result === undefined
          ? ''
          : h('pre', { className: 'call-result' }, clipped(call.result, call.result_chars)),
      ),
      h('td', { className: 'outcome' }, call.outcome),
      h('td', { className: 'took' }, ms(call.ms ?? 0)),
    ),
  )
}

/** A text the service clipped, saying how long it was. */
const clipped = (text, chars) => (chars ? `${text}… (${chars} characters)` : text)

/** `event: parsed`: the answer checked against the prompt's `returns`. */
function parsedView(data) {
  return h(
    'div',
    { className: `parsed ${data.valid ? 'valid' : 'invalid'}`, 'data-role': 'parsed' },
    h('strong', {}, data.valid ? 'parsed (valid against returns)' : 'not valid against returns'),
    data.valid
      ? h('pre', {}, json(data.parsed))
      : h(
          'ul',
          {},
          (data.errors ?? []).map((e) => h('li', {}, typeof e === 'string' ? e : json(e))),
        ),
    data.parse_warnings ? h('p', { className: 'note' }, `warnings: ${json(data.parse_warnings)}`) : null,
  )
}

function usageView(usage, steps) {
  const parts = [
    `${usage.prompt_tokens ?? '?'} prompt`,
    `${usage.completion_tokens ?? '?'} completion`,
    `${usage.total_tokens ?? '?'} tokens`,
  ]
  return h(
    'p',
    { className: 'usage', 'data-role': 'usage' },
    `usage: ${parts.join(' · ')}${steps > 0 ? ` · ${steps} tool call${steps === 1 ? '' : 's'}` : ''}`,
  )
}

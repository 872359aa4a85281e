// A render's timing: its total and phases, and its tool calls as a waterfall
// that reads as text too: a table whose rows say the tool, the outcome, when
// the call started and how long it took; the bars are drawn beside them.
import { h } from './dom.js'

const ms = (n) => `${Math.round(n * 10) / 10} ms`

/** The timing of a render answer (its `timing`), as elements. */
export function timingView(timing) {
  if (!timing) return h('p', { className: 'note' }, 'The answer has no timing.')
  const phases = Object.entries(timing.phases ?? {}).map(([name, value]) => `${name} ${ms(value)}`)
  const calls = timing.calls ?? []
  const span = Math.max(timing.total_ms ?? 0, ...calls.map((c) => c.start_ms + c.ms), 1)
  const pct = (n) => `${Math.min(100, (Math.max(0, n) / span) * 100)}%`
  /** A call's bar, placed through the CSSOM (the page's CSP takes no style attribute). */
  const bar = (c) => {
    const el = h('span', { className: 'bar' })
    el.style.setProperty('left', pct(c.start_ms))
    el.style.setProperty('width', `max(2px, ${pct(c.ms)})`)
    return el
  }
  return [
    h('p', {}, `total ${ms(timing.total_ms ?? 0)}`, phases.length ? ` · ${phases.join(' · ')}` : ''),
    calls.length === 0
      ? h('p', { className: 'note' }, 'No tool calls.')
      : h(
          'table',
          { className: 'waterfall' },
          h('caption', { className: 'visually-hidden' }, 'Tool calls of this render'),
          h(
            'thead',
            {},
            h(
              'tr',
              {},
              ['Tool', 'Outcome', 'Start', 'Took'].map((name) => h('th', { scope: 'col' }, name)),
              h('th', { scope: 'col', className: 'visually-hidden' }, 'Timeline'),
            ),
          ),
          h(
            'tbody',
            {},
            calls.map((c) =>
              h(
                'tr',
                { className: `call ${c.outcome}` },
                h('th', { scope: 'row', className: 'tool id', title: c.tool }, c.tool),
                h('td', { className: 'outcome' }, c.outcome),
                h('td', { className: 'start' }, `at ${ms(c.start_ms)}`),
                h('td', { className: 'took' }, ms(c.ms)),
                h('td', { className: 'track', 'aria-hidden': 'true' }, bar(c)),
              ),
            ),
          ),
        ),
  ]
}

/**
 * Structured logging: one JSON object per line, so that Workers Logs and
 * `wrangler tail` can filter on fields. Callers pass facts, never secrets or
 * argument values.
 */
type Level = 'info' | 'warn' | 'error'
export type LogFields = Record<string, unknown>

function emit(level: Level, msg: string, fields: LogFields): void {
  const line = JSON.stringify({ level, msg, ...fields })
  if (level === 'error') console.error(line)
  else if (level === 'warn') console.warn(line)
  else console.log(line)
}

export const log = {
  info: (msg: string, fields: LogFields = {}) => emit('info', msg, fields),
  warn: (msg: string, fields: LogFields = {}) => emit('warn', msg, fields),
  error: (msg: string, fields: LogFields = {}) => emit('error', msg, fields),
}

/** A message for an unknown thrown value, for logs and error bodies. */
export function describeError(e: unknown): string {
  if (e instanceof Error) return e.message
  return String(e)
}

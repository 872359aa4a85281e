import { DELETED, TOMBSTONE, historyKeys } from './keys'
import { INDEX_KEY } from './record-index'
import type { Command } from './types'

/**
 * The one Lua script every write through the service runs (history.ts
 * commit): Redis runs a script alone, so what it reads cannot change before
 * it writes. Over REST, WATCH cannot span two requests; this is what makes
 * a write's decision and the write one step.
 *
 * It first checks everything a command could fail on (a key of another
 * type, a version count that is no count) and every guard, a key the
 * caller's decision read, by the SHA-1 of its text (anything but a string
 * counts as none, as MGET reads it). Nothing is written unless all hold:
 * a failed check answers what it found, a failed guard `CHANGED`; a
 * success answers an array. Then, per
 * record: when the record is not the text of its newest version, it was
 * changed by other means, and gets a version saying so; then its new text
 * and version. Then the keys to delete. It answers each record's new version.
 * Each record key it sets it adds to the record index, each it deletes it
 * takes out (record-index.ts): a record written through the service is
 * listed at once. History keys are never indexed.
 *
 * KEYS: per change its key and historyKeys (seq, head, log, values); the
 * keys to delete; the keys guarded; the record index. ARGV: the counts of those three, LTRIM's
 * last index, TOMBSTONE, DELETED, the found version's log entry if the
 * record is live and if it is not; per change its text ('' to delete), log
 * entry and head; per guard the SHA-1 read ('' for none).
 */
const SCRIPT = `
local changes, deletions, guards = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local keep, tombstone, deleted, foundLive, foundGone = ARGV[4], ARGV[5], ARGV[6], ARGV[7], ARGV[8]
local index = KEYS[#KEYS]
local function kind(key) return redis.call('TYPE', key).ok end
local function refuse(key, held, should)
  return key .. ' holds a Redis ' .. held .. ', not ' .. should
end
local indexed = kind(index)
if indexed ~= 'zset' and indexed ~= 'none' then return refuse(index, indexed, 'the record index (a sorted set)') end
for i = 0, changes - 1 do
  local k = 5 * i
  local held = kind(KEYS[k + 1])
  if held ~= 'string' and held ~= 'none' then return refuse(KEYS[k + 1], held, 'a record') end
  held = kind(KEYS[k + 2])
  if held == 'string' then
    local count = redis.call('GET', KEYS[k + 2])
    if not (count == '0' or (#count <= 15 and string.match(count, '^[1-9]%d*$'))) then
      return 'the version count ' .. KEYS[k + 2] .. ' is not a number: ' .. string.sub(count, 1, 40)
    end
  elseif held ~= 'none' then return refuse(KEYS[k + 2], held, 'a version count') end
  for j = 4, 5 do
    held = kind(KEYS[k + j])
    if held ~= 'list' and held ~= 'none' then return refuse(KEYS[k + j], held, 'the list of versions it should') end
  end
end
local guarded = 5 * changes + deletions
for i = 1, guards do
  local key, seen = KEYS[guarded + i], ''
  if kind(key) == 'string' then seen = redis.sha1hex(redis.call('GET', key)) end
  if seen ~= ARGV[8 + 3 * changes + i] then return 'CHANGED' end
end
local versions = {}
for i = 0, changes - 1 do
  local key, seq, head, log, values = KEYS[5 * i + 1], KEYS[5 * i + 2], KEYS[5 * i + 3], KEYS[5 * i + 4], KEYS[5 * i + 5]
  local text, entry, digest = ARGV[9 + 3 * i], ARGV[10 + 3 * i], ARGV[11 + 3 * i]
  local current, newest = redis.call('GET', key), redis.call('LINDEX', values, 0)
  if newest == '' then newest = false end
  if current ~= newest then
    redis.call('LPUSH', log, (current == false or current == tombstone) and foundGone or foundLive)
    redis.call('LPUSH', values, current or '')
    redis.call('INCR', seq)
  end
  if digest == deleted then
    redis.call('DEL', key)
    redis.call('ZREM', index, key)
  else
    redis.call('SET', key, text)
    redis.call('ZADD', index, 0, key)
  end
  redis.call('LPUSH', log, entry)
  redis.call('LPUSH', values, text)
  versions[i + 1] = redis.call('INCR', seq)
  redis.call('SET', head, digest)
  redis.call('LTRIM', log, 0, keep)
  redis.call('LTRIM', values, 0, keep)
end
for i = 1, deletions do
  redis.call('DEL', KEYS[5 * changes + i])
  redis.call('ZREM', index, KEYS[5 * changes + i])
end
return versions
`

/** What the script answers when a guard no longer holds what was read. */
export const CHANGED = 'CHANGED'

/** One record the script writes: its text (null deletes it), log entry and head (history.ts). */
export interface ScriptChange {
  key: string
  text: string | null
  entry: string
  digest: string
}

/** A key a decision read, and the SHA-1 of the text it read there ('' for none). */
export interface Guard {
  key: string
  sha1: string
}

/** The EVAL of the script; `found` are the log entries of a found version, of a live record and of a deleted one. */
export function commitCommand(
  changes: readonly ScriptChange[],
  options: {
    keep: number
    found: { live: string; gone: string }
    deletions: readonly string[]
    guards: readonly Guard[]
  },
): Command {
  const keys = [
    ...changes.flatMap(({ key }) => {
      const h = historyKeys(key)
      return [key, h.seq, h.head, h.log, h.values]
    }),
    ...options.deletions,
    ...options.guards.map(({ key }) => key),
    INDEX_KEY,
  ]
  const counts = [changes.length, options.deletions.length, options.guards.length].map(String)
  return [
    'EVAL',
    SCRIPT,
    String(keys.length),
    ...keys,
    ...counts,
    String(options.keep),
    TOMBSTONE,
    DELETED,
    options.found.live,
    options.found.gone,
    ...changes.flatMap(({ text, entry, digest }) => [text ?? '', entry, digest]),
    ...options.guards.map(({ sha1 }) => sha1),
  ]
}

import { log } from '../log'
import { utf8Length } from '../template'
import { KINDS, LABEL_PATTERN, ROOT, TOMBSTONE, kindPrefix, overlayKey } from './keys'
import type { Page, Tree, TreeRequest } from './types'
import { passedAt } from './within'

/**
 * The record index: one sorted set whose members, all of score 0, are the
 * full keys of every record (the four kinds, and every label's overlay
 * keys, tombstones included), so that a prefix is read in byte order with
 * ZRANGE BYLEX instead of a walk of the whole keyspace. Kept by every write
 * through the service (commit-script.ts) and reconciled with what other
 * modules write straight into Redis by the scheduled handler (reconcile.ts).
 */
export const INDEX_KEY = `${ROOT}index:keys`
/**
 * The reconcile's state (a hash): `ready`, the time of its first full pass,
 * without which there is no index and readers walk the keyspace instead;
 * the rest is its own cursor (reconcile.ts).
 */
export const INDEX_STATE = `${ROOT}index:state`
/** What EVAL passes as KEYS first: a script declares the keys it knows before it runs (see TREE_SCRIPT). */
export const INDEX_KEYS = [INDEX_KEY, INDEX_STATE] as const

/** Members a script reads from the index at once. */
const CHUNK = 1000
/** Keys per MGET of a script: Lua's unpack pushes each argument on a stack of bounded depth (as within.ts). */
const MGET_BATCH = 500
/** Members under a probe a label's read looks at for one it sees; past them, the probe counts as occupied. */
const PROBE_MOST = 1000

/** Whether `key` belongs in the index: a record of one of the four kinds, or a label's own. */
export function isRecordKey(key: string): boolean {
  if (KINDS.some((kind) => key.startsWith(kindPrefix(kind)))) return true
  const labels = `${ROOT}labels:`
  if (!key.startsWith(labels)) return false
  const at = key.indexOf(':', labels.length)
  if (at === -1 || !LABEL_PATTERN.test(key.slice(labels.length, at))) return false
  return KINDS.some((kind) => key.startsWith(`${kind}:`, at + 1))
}

/** The lex range of the members under `prefix`: from it, up to (not with) its last byte plus one. */
function range(prefix: string): [string, string] {
  return [`[${prefix}`, `(${prefix.slice(0, -1)}${String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1)}`]
}

/**
 * A page of the index: KEYS the index and its state; ARGV the lex range's
 * start and end and the count. Answers {-1} when there is no index yet.
 */
export const PAGE_SCRIPT = `
if redis.call('HEXISTS', KEYS[2], 'ready') == 0 then return {-1} end
return {1, redis.call('ZRANGE', KEYS[1], ARGV[1], ARGV[2], 'BYLEX', 'LIMIT', 0, tonumber(ARGV[3]))}
`

/** ARGV of PAGE_SCRIPT: one key more than `limit`, which says whether more follow. */
export function pageArgs(prefix: string, after: string, limit: number): string[] {
  const [from, to] = range(prefix)
  return [after !== '' && after >= prefix ? `(${after}` : from, to, String(limit + 1)]
}

/** PAGE_SCRIPT's answer as a Page; undefined when there is no index. */
export function pageAnswer(result: unknown, limit: number): Page | undefined {
  const [ready, members] = result as [number, unknown[] | undefined]
  if (ready !== 1 || !members) return undefined
  const keys = members.slice(0, limit).map(String)
  return { keys, more: members.length > limit }
}

/**
 * The labels that have keys of their own, in byte order, after the label
 * ARGV[2] ('' from the first), ARGV[3] + 1 at most (one more says more
 * follow): one ZRANGE BYLEX of one member per label, each jumping past that
 * label's keys (`shenma:labels:{label}:` ... up to `{label};`, the byte after
 * ':'), so that a page costs its labels, never their keys. KEYS the index and
 * its state; ARGV[1] the labels' prefix. {-1}: there is no index yet.
 */
export const LABELS_SCRIPT = `
if redis.call('HEXISTS', KEYS[2], 'ready') == 0 then return {-1} end
local prefix, after, most = ARGV[1], ARGV[2], tonumber(ARGV[3]) + 1
local last = '(' .. string.sub(prefix, 1, -2) .. string.char(string.byte(prefix, -1) + 1)
local from, labels = '[' .. prefix, {}
if after ~= '' then from = '[' .. prefix .. after .. ';' end
while #labels < most do
  local member = redis.call('ZRANGE', KEYS[1], from, last, 'BYLEX', 'LIMIT', 0, 1)[1]
  if not member then break end
  local rest = string.sub(member, #prefix + 1)
  local at = string.find(rest, ':', 1, true)
  if at then
    labels[#labels + 1] = string.sub(rest, 1, at - 1)
    from = '[' .. prefix .. string.sub(rest, 1, at - 1) .. ';'
  else
    from = '(' .. member
  end
end
return {1, labels}
`

/** LABELS_SCRIPT's answer as a page of labels; undefined when there is no index. */
export function labelsAnswer(result: unknown, limit: number): Page | undefined {
  const [ready, labels] = result as [number, unknown[] | undefined]
  if (ready !== 1 || !labels) return undefined
  return { keys: labels.slice(0, limit).map(String), more: labels.length > limit }
}

/**
 * Store.tree in one EVAL, as tree.ts treeOf defines it, a label's view
 * included (labeled.ts: its own key wins, a tombstone hides, and what it
 * hides is not counted). KEYS: the index, its state, the keys asked. ARGV:
 * the budget, TOMBSTONE ('' without a label), the counts of prefixes and
 * probes, per key asked its label's key ('' none), per prefix and per probe
 * the prefix and its label's prefix ('' none).
 *
 * The keys below are computed from the index, so the script reads keys it
 * cannot declare: Redis without cluster mode and Upstash run it (a cluster
 * would refuse it). The script charges the values of the keys asked; then,
 * per source (a prefix, and its label's prefix), the names of the keys the
 * label sees under it, a chunk of members at a time, stopping once one
 * source's names alone pass what is left, so that a subtree of a million
 * keys costs no more than the budget; then the values below. Everything
 * past the budget answers {0, sizes asked, names, sizes below[, key]}, and
 * the caller (treeAnswer) names the key that passed it in the order treeOf
 * charges; within, {1, values asked, names, values below, occupied}. Names
 * come unsorted: Lua compares strings by the server's locale, not by bytes.
 * Members a label hides, or that no longer hold a value, are skipped
 * uncounted, up to the budget's worth of names (past it, the read is
 * refused at that key). {-1}: there is no index yet.
 */
export const TREE_SCRIPT = `
local index = KEYS[1]
if redis.call('HEXISTS', KEYS[2], 'ready') == 0 then return {-1} end
local most, tomb, prefixes, probes = tonumber(ARGV[1]), ARGV[2], tonumber(ARGV[3]), tonumber(ARGV[4])
local asked = #KEYS - 2
local function size(key)
  local n = redis.pcall('STRLEN', key)
  if type(n) ~= 'number' or (n == 0 and redis.call('TYPE', key).ok ~= 'string') then return -1 end
  return n
end
local function tombstone(key) return tomb ~= '' and size(key) == #tomb and redis.call('GET', key) == tomb end
-- Where the value of key the label sees lies: its own key when that holds a string, else key; false: hidden.
local function seen(key, own)
  if own == '' or size(own) < 0 then return key end
  if tombstone(own) then return false end
  return own
end
local function above(prefix) return '(' .. string.sub(prefix, 1, -2) .. string.char(string.byte(prefix, -1) + 1) end

local sizes, at, used, skip = {}, {}, 0, {}
for i = 1, asked do
  local key = seen(KEYS[2 + i], ARGV[4 + i])
  at[i], sizes[i], skip[KEYS[2 + i]] = key, key and size(key) or -1, true
  used = used + math.max(sizes[i], 0)
end
if used > most then return {0, sizes, {}, {}} end

-- Each key of a member of the source 'from' under prefix p (the label's: op), as the label sees it, or false.
local function visible(from, p, op, member)
  local rest = string.sub(member, #from + 1)
  local key, own = p .. rest, ''
  if op ~= '' then own = op .. rest end
  if from ~= p and size(member) < 0 then return key, false end
  return key, seen(key, own)
end

local names, where, unseen = {}, {}, 0
-- Lists the source; answers the key at which it stopped: names past left, or too many unseen.
local function list(from, p, op, left)
  local after, named = '[' .. from, 0
  while true do
    local batch = redis.call('ZRANGE', index, after, above(from), 'BYLEX', 'LIMIT', 0, ${CHUNK})
    for _, member in ipairs(batch) do
      local key, read = visible(from, p, op, member)
      if skip[key] then
      elseif read then
        if where[key] == nil then where[key] = read; names[#names + 1] = key end
        named = named + #key
        if named > left then return true end
      else
        unseen = unseen + #member
        if unseen > most then return true, key end
      end
    end
    if #batch < ${CHUNK} then return false end
    after = '(' .. batch[#batch]
  end
end

local base = 4 + asked
for j = 1, prefixes do
  local p, op = ARGV[base + 2 * j - 1], ARGV[base + 2 * j]
  local cut, key = list(p, p, op, most - used)
  if not cut and op ~= '' then cut, key = list(op, p, op, most - used) end
  if cut then return {0, sizes, names, {}, key or false} end
end

local below = {}
for i, key in ipairs(names) do
  below[i] = size(where[key])
  used = used + #key + math.max(below[i], 0)
end
if used > most then return {0, sizes, names, below} end

local function read(keys, count)
  local values, wanted, slots = {}, {}, {}
  for i = 1, count do
    values[i] = false
    if keys[i] then wanted[#wanted + 1], slots[#slots + 1] = keys[i], i end
  end
  for first = 1, #wanted, ${MGET_BATCH} do
    local got = redis.call('MGET', unpack(wanted, first, math.min(first + ${MGET_BATCH} - 1, #wanted)))
    for j = 1, #got do values[slots[first + j - 1]] = got[j] end
  end
  return values
end
local keysBelow = {}
for i, key in ipairs(names) do keysBelow[i] = where[key] end

-- Whether the label sees a key under the probe q: the first member, or past PROBE_MOST members it hides.
local function any(from, q, oq)
  local after, looked = '[' .. from, 0
  local count = 100
  if oq == '' then count = 1 end
  while looked < ${PROBE_MOST} do
    local batch = redis.call('ZRANGE', index, after, above(from), 'BYLEX', 'LIMIT', 0, count)
    for _, member in ipairs(batch) do
      local _, read = visible(from, q, oq, member)
      if read then return true end
    end
    if #batch < count then return false end
    looked, after = looked + #batch, '(' .. batch[#batch]
  end
  return true
end
local occupied, probed = {}, base + 2 * prefixes
for j = 1, probes do
  local q, oq = ARGV[probed + 2 * j - 1], ARGV[probed + 2 * j]
  occupied[j] = 0
  if any(q, q, oq) or (oq ~= '' and any(oq, q, oq)) then occupied[j] = 1 end
end
return {1, read(at, asked), names, read(keysBelow, #names), occupied}
`

/** KEYS and ARGV of TREE_SCRIPT for what Store.tree is asked. */
export function treeCall({ keys, prefixes, probes, maxBytes, label }: TreeRequest): { keys: string[]; args: string[] } {
  const own = (key: string) => (label !== undefined && isRecordKey(key) ? overlayKey(label, key) : '')
  const pairs = (list: readonly string[]) => list.flatMap((prefix) => [prefix, own(prefix)])
  return {
    keys: [...INDEX_KEYS, ...keys],
    args: [
      String(maxBytes),
      label === undefined ? '' : TOMBSTONE,
      String(prefixes.length),
      String(probes.length),
      ...keys.map(own),
      ...pairs(prefixes),
      ...pairs(probes),
    ],
  }
}

/**
 * TREE_SCRIPT's answer as a Tree, the keys below sorted; undefined when
 * there is no index. Past the budget, the key named is the first with which
 * treeOf's order (values asked, names below, values below) passes it.
 */
export function treeAnswer(result: unknown, { keys, maxBytes }: TreeRequest): Tree | undefined {
  const [state, asked, listed, below, last] = result as [number, unknown[], unknown[], unknown[], unknown]
  if (state === -1) return undefined
  const names = listed.map(String)
  const order = names.map((_, i) => i).sort((a, b) => ((names[a] as string) < (names[b] as string) ? -1 : 1))
  const sorted = order.map((i) => names[i] as string)
  if (state === 1) {
    return {
      within: true,
      values: asked.map(text),
      below: sorted,
      belowValues: order.map((i) => text(below[i])),
      occupied: (last as unknown[]).map((flag) => flag === 1),
    }
  }
  if (typeof last === 'string') return { within: false, passed: last }
  const sizes = [
    ...asked.map(Number),
    ...sorted.map((name) => utf8Length(name, 0, name.length)),
    ...order.slice(0, below.length).map((i) => Number(below[i])),
  ]
  const at = passedAt(sizes, maxBytes)
  const all = [...keys, ...sorted, ...sorted]
  return { within: false, passed: all[at === -1 ? sizes.length - 1 : at] as string }
}

function text(value: unknown): string | null {
  return value === null || value === undefined ? null : String(value)
}

let warned = false

/** Says, once per isolate, that a read walked the keyspace because the index is not ready. */
export function noIndex(read: string): void {
  if (warned) return
  warned = true
  log.warn(
    'the record index is not ready: reads walk the keyspace (SCAN) until the scheduled reconcile first completes',
    {
      read,
      index: INDEX_KEY,
    },
  )
}

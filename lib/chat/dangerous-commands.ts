/**
 * Shell commands that destroy what they touch, as a model may write them
 * in an `<actions>` block: the documented list (docs/chat.md, "Answers in tags").
 * A match marks the command line `dangerous` with its reason; nothing is
 * refused or run here, the caller decides. A line is a model's text, of any
 * length: each test is one or more regular expressions none of which can
 * backtrack more than linearly (where one would need `.*` between two
 * words, two tests each find one word; a fork bomb's body is short, so
 * only 32 characters of it are read from each start).
 */
type Test = (line: string) => boolean

/** Every expression matches the line, anywhere. */
const all =
  (...patterns: RegExp[]): Test =>
  (line) =>
    patterns.every((p) => p.test(line))

/** A segment that fetches, piped into a segment that is a shell. */
const pipedToShell: Test = (line) => {
  const segments = line.split('|')
  return segments.some(
    (s, i) => /\b(?:curl|wget)\b/.test(s) && /^\s*(?:sudo\s+)?(?:ba|z|k|da)?sh\b/.test(segments[i + 1] ?? ''),
  )
}

const TESTS: readonly [Test, string][] = [
  [all(/\brm\s+(?:-\w*[rR]\w*|--recursive)\b/), 'deletes recursively'],
  [all(/\b(?:rmdir|rd|del)\s+\/[sS]\b/), 'deletes recursively'],
  [all(/\bRemove-Item\b/i, /\s-Recurse\b/i), 'deletes recursively'],
  [all(/\bsudo\s+rm\b/), 'deletes as root'],
  [all(/\b(?:mkfs(?:\.\w+)?|fdisk|sfdisk|parted|wipefs)\b|\bformat\s+[A-Za-z]:/), 'formats or repartitions a disk'],
  [all(/\bdd\b/, /\bof=\/dev\//), 'writes over a raw device'],
  [all(/>\s*\/dev\/(?:sd|hd|nvme|vd|xvd|disk|mmcblk)/), 'writes over a raw device'],
  [all(/(?<!\w)(\w+|:)\s*\(\)\s*\{[^}|]{0,32}\|\s*\1\s*&/), 'is a fork bomb'],
  [pipedToShell, 'runs a script straight from the network'],
  [all(/\bchmod\s+(?:-\w*R\w*\s+|--recursive\s+)?(?:0?777|a\+rwx)\s+\/(?:\s|$)/), 'makes every file world-writable'],
  [all(/\bchmod\s+(?:-\w*R\w*|--recursive)\s+(?:0?777|a\+rwx)\b/), 'makes a tree world-writable'],
  [all(/\bchown\s+(?:-\w*R\w*|--recursive)\s+\S+\s+\/(?:\s|$)/), 'changes the owner of every file'],
  [all(/>\s*\/etc\/(?:passwd|shadow|sudoers|fstab)\b/), 'overwrites a system file'],
  [all(/\b(?:shutdown|reboot|halt|poweroff)\b|\binit\s+[06]\b/), 'stops or restarts the machine'],
  [all(/\bkill\s+-9\s+-1\b|\bkillall\b/), 'kills every process'],
  [all(/\bgit\s+push\b/, /\s(?:--force|-f)(?:\s|$)/), 'rewrites a remote branch'],
  [all(/\bgit\s+(?:reset\s+--hard|clean\s+-\w*f)/), 'discards uncommitted work'],
]

/** Why `line` is dangerous, or undefined when no test matches it. */
export function dangerOf(line: string): string | undefined {
  return TESTS.find(([test]) => test(line))?.[1]
}

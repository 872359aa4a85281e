/**
 * strconv.IsPrint (Go 1.19, Unicode 13): letters, marks, numbers, punctuation,
 * symbols and U+0020. The ranges of printable runes, as base-36 pairs (gap
 * since the end of the previous range, length), generated with
 *
 *   for r := 0; r <= 0x10FFFF; { if !strconv.IsPrint(rune(r)) { r++; continue }
 *     s := r; for r <= 0x10FFFF && strconv.IsPrint(rune(r)) { r++ }
 *     emit(s-prev, r-s); prev = r }
 */
const PRINT_RANGES =
  'w 2n y c 1 ju 2 6 4 7 1 1 1 k 1 b1 1 12 2 1e 2 3 1 1j 8 r 4 6 h m 2 5b 1 1c 2 1n 2 2t e 1n 2 1d 2 f ' +
  '1 s 2 1 1 b 1h l 1 i b f 1 4h 1 8 2 2 2 m 1 7 1 1 3 4 2 9 2 2 2 4 8 1 4 2 1 5 2 p 2 3 1 6 4 2 2 m 1 ' +
  '7 1 2 1 2 1 2 2 1 1 5 4 2 2 3 3 1 7 4 1 1 7 h a 3 1 9 1 3 1 m 1 7 1 2 1 5 2 a 1 3 1 3 2 1 f 4 2 c 7 ' +
  '7 1 3 1 8 2 2 2 m 1 7 1 2 1 5 2 9 2 2 2 3 7 3 4 2 1 5 2 i a 2 1 6 3 3 1 4 3 2 1 1 1 2 3 2 3 3 3 c 4 ' +
  '5 3 3 1 4 2 1 6 1 e l 5 d 1 3 1 n 1 g 3 8 1 3 1 4 7 2 1 3 5 4 2 a 7 m 1 3 1 n 1 a 1 5 2 9 1 3 1 4 7 ' +
  '2 7 1 1 4 2 a 1 2 d d 1 3 1 1f 1 3 1 6 4 g 2 q 1 3 1 i 3 o 1 9 1 1 2 7 3 1 4 6 1 1 1 8 6 a 2 3 c 1m ' +
  '4 t 11 2 1 1 1 5 1 o 1 1 1 n 2 5 1 1 1 6 2 a 2 4 w 20 1 10 4 13 1 10 1 f 1 d 11 5i 1 1 5 1 2 ah 1 4 ' +
  '2 7 1 1 1 4 2 15 1 4 2 x 1 4 2 7 1 1 1 4 2 f 1 1l 1 4 2 1v 2 w 3 q 6 2e 2 6 2 hs 1 s 3 2h 7 d 1 7 b ' +
  'n 9 k c d 1 3 1 2 c 2m 2 a 6 a 6 e 2 a 6 2h 7 17 5 1y a v 1 c 4 c 4 1 3 16 2 5 b 18 4 q 6 b 3 1q 2 ' +
  '1t 1 t 2 b 6 a 6 e 2 h 1r 24 4 19 3 38 8 1o 3 f 3 1o 7 17 2 b 8 17 5 6y 1 7v 2 6 2 12 2 6 2 8 1 1 1 ' +
  '1 1 1 1 v 2 1h 1 f 1 e 2 6 1 j 2 3 1 9 h o 8 1b h 2 2 r 1 d 3 w g x f 3w 4 if p b l 1ec 2 w 1 48 1 ' +
  '1b 1 44 5 19 1 1 5 1 2 1k 7 2 e o 9 7 1 7 1 7 1 7 1 7 1 7 1 7 1 7 1 37 19 q 1 2h c 5y q c 5 1r 1 2e ' +
  '2 2v 5 17 1 2m 1 2c c 1b 1 lp9 3 wd 3 1j 9 9o k 54 8 5c 2 9 16 1k 3 a 6 1k 8 1y 8 c 6 38 b u 3 26 1 ' +
  'b 4 x 1 1j 9 e 2 a 2 2v o s a 6 2 6 2 6 9 7 1 7 1 1o 4 3i 2 a 6 8mc c n 4 1d 6is a6 2 2y 12 7 c 5 5 ' +
  'q 1 5 1 1 1 2 1 2 1 3g h a5 g 1s 2 1i 14 e 2 q 6 1f 1 j 1 4 4 5 1 3r 4 5a 3 6 2 6 2 6 2 3 3 7 1 7 d ' +
  '2 2 c 1 q 1 j 1 2 1 f 2 e y 3f 5 3 4 19 3 2g 1 d 3 1 1b 1a 3m t 3 1d f s 4 10 9 u 5 17 5 u 1 11 4 e ' +
  '16 4e 2 a 6 10 4 10 4 14 8 1g b 1 40 8n 9 m a 8 48 6 2 1 1 18 1 2 3 1 2 n 1 20 8 9 1c j 1 2 5 x 3 r ' +
  '5 1 1s 1k 4 k 2 1e 1 2 5 8 1 3 1 t 2 3 4 a 7 9 7 1s w 13 4 c 9 1i 3 t 2 r 5 q 7 4 c 7 28 21 1j 1f d ' +
  '1f 7 1a 8 a 86 v 1 16 1 3 2 2 26 14 8 16 2e s k n 9 26 4 u f 1q 1 4 e p 7 a 6 1h 1 i 8 13 9 2o 1 k b ' +
  'i 1 18 1t 7 1 1 1 4 1 f 1 b 6 1n 5 a 6 4 1 8 2 2 2 m 1 7 1 2 1 5 1 a 2 2 2 3 2 1 6 1 5 7 2 7 3 5 3v ' +
  '2k 1 5 u 20 8 a 4m 1i 2 12 y 1x b a 6 d j 1l 7 a 1i r 2 f 4 g 5c 1o 2s 2b c 8 2 1 2 8 1 2 1 u 1 2 2 ' +
  'c 9 a 1y 8 2 1a 2 b r 20 8 2b t 1l 7b 9 1 19 1 e a t 3 w 2 m 1 e 21 7 1 2 1 18 3 1 1 2 1 9 8 a 6 6 1 ' +
  '2 1 11 1 2 1 6 7 a 8m p 53 1 f 1e d pn 2u 33 1 5 b 5g 24c tr 34h g7 6nt ft 7 v 1 a 4 2 2o u 2 6 a 1y ' +
  'a a 1 7 1 l 5 j j4 2j 2t 23 4 1l 7 h 1s 5 b 2 e 4qg 8 ye 16 9 6wn 7z 1d 3 h 4 8 b0 1s4 2z 5 d 3 9 7 ' +
  'a 2 4 3ts 6u a 13 2 22 8 32 n 1y 4a k c 2f 9 p 3r 2d 1 1z 1 2 2 1 2 2 2 4 1 c 1 1 1 7 1 1t 1 4 2 8 1 ' +
  '7 1 s 1 4 1 5 1 1 3 7 1 9g 2 84 2 ji f 5 1 f 11s 7 1 h 2 7 1 2 1 5 5x 19 3 e 2 a 4 2 a8 1m 5 1 zk 5h ' +
  '2 g 15 24 4 a 4 2 lt 1w 24 1p 5e 4 1 r 1 2 1 1 2 1 1 a 1 4 1 1 1 1 6 1 4 1 1 1 1 1 1 3 1 2 1 1 2 1 1 ' +
  '1 1 1 1 1 1 1 1 2 1 1 2 4 1 7 1 4 1 4 1 1 1 a 1 h 5 3 1 5 1 h 1g 2 7i 18 4 2s c f 2 f 1 f 1 11 a 4u ' +
  '1k t d 18 4 9 7 2 e 6 4a rc 8 d 3 d 3 38 c 2h 7 c k c 4 1k 8 a 6 14 8 u 2 2 26 3d 1 2a 1 3r c e 2 5 ' +
  '3 3 5 7 9 p 7 7 9 3 d 7 15 43 1 1j 11 a sm wym y 379 b 66 2 4g2 e 5rl 2e7 f2 15u 3t7 fcmt 6o'

let printStarts: Uint32Array | undefined
let printEnds: Uint32Array | undefined

/** isPrint of the Basic Multilingual Plane, filled as it is asked: 0 unknown, 1 printable, 2 not. */
const bmp = new Uint8Array(0x10000)

export function isPrint(r: number): boolean {
  if (r <= 0xff) {
    if (r >= 0x20 && r <= 0x7e) return true
    if (r >= 0xa1 && r <= 0xff) return r !== 0xad
    return false
  }
  if (r > 0xffff) return inRanges(r)
  let known = bmp[r] as number
  if (known === 0) bmp[r] = known = inRanges(r) ? 1 : 2
  return known === 1
}

function inRanges(r: number): boolean {
  if (!printStarts || !printEnds) {
    const parts = PRINT_RANGES.split(' ')
    const n = parts.length >> 1
    printStarts = new Uint32Array(n)
    printEnds = new Uint32Array(n)
    let prev = 0
    for (let i = 0; i < n; i++) {
      const start = prev + parseInt(parts[2 * i] as string, 36)
      prev = start + parseInt(parts[2 * i + 1] as string, 36)
      printStarts[i] = start
      printEnds[i] = prev
    }
  }
  // The last range starting at or before r.
  let lo = 0
  let hi = printStarts.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if ((printStarts[mid] as number) <= r) lo = mid + 1
    else hi = mid
  }
  return lo > 0 && r < (printEnds[lo - 1] as number)
}

/** Code points and digits shared by the fmt and strconv ports. */

/** The verbs, as code points. */
export const enum C {
  b = 0x62,
  c = 0x63,
  d = 0x64,
  e = 0x65,
  f = 0x66,
  g = 0x67,
  o = 0x6f,
  p = 0x70,
  q = 0x71,
  s = 0x73,
  t = 0x74,
  v = 0x76,
  w = 0x77,
  x = 0x78,
  E = 0x45,
  F = 0x46,
  G = 0x47,
  O = 0x4f,
  T = 0x54,
  U = 0x55,
  X = 0x58,
}

export const LDIGITS = '0123456789abcdef'
export const UDIGITS = '0123456789ABCDEF'

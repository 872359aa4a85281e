import { utf8Length } from '../fmt/utf8'

/**
 * Go's line and column of positions in one text. Sites come mostly in
 * source order, so each is found from the one before when it lies further
 * on the same line: a long line with many sites is read once, not once a site.
 */
export class Locator {
  readonly #text: string
  /** Where each line starts, found at the first position asked for. */
  #starts: number[] | undefined
  #pos = 0
  #line = 0
  #column = 0

  constructor(text: string) {
    this.#text = text
  }

  locate(pos: number): { line: number; column: number } {
    const text = this.#text
    let starts = this.#starts
    if (!starts) {
      starts = this.#starts = [0]
      for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1)
    }
    const next = starts[this.#line + 1] ?? Infinity
    if (pos < this.#pos || pos >= next) {
      let lo = 0
      let hi = starts.length - 1
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1
        if ((starts[mid] as number) <= pos) lo = mid
        else hi = mid - 1
      }
      this.#line = lo
      this.#pos = starts[lo] as number
      this.#column = 0
    }
    this.#column += utf8Length(text, this.#pos, pos)
    this.#pos = pos
    return { line: this.#line + 1, column: this.#column }
  }
}

/** Go's line and column of a position: the column counts UTF-8 bytes from the line's start, from 0. */
export function location(text: string, pos: number): { line: number; column: number } {
  return new Locator(text).locate(pos)
}

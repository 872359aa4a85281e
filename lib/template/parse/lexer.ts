/**
 * The lexer of Go's text/template (text/template/parse/lex.go, Go 1.19),
 * written as Go 1.20 and later write it: a pull lexer. There is no goroutine
 * and no channel; nextItem runs the state functions until one of them has
 * emitted an item, and keeps the state it stopped in for the next call. Each
 * state function emits at most one item.
 *
 * The input is a JS string, so positions are UTF-16 offsets where Go's are
 * byte offsets, and a "rune" is a code point read with codePointAt.
 */
import { ItemType } from './items'
import type { Item } from './items'
import { LexerState } from './lex-state'
import type { LexOptions } from './lex-state'
import { lexText } from './lex-states'

export { ItemType, isKeyword, itemTypeName } from './items'
export type { Item } from './items'
export type { LexOptions } from './lex-state'

/**
 * Lexer scans a template into items. Call nextItem until it returns an EOF
 * or Error item; after either, it returns EOF items for ever.
 */
export class Lexer {
  private readonly l: LexerState

  constructor(name: string, input: string, options: LexOptions = {}) {
    this.l = new LexerState(name, input, options, lexText)
  }

  // nextItem returns the next item from the input.
  nextItem(): Item {
    const l = this.l
    let item = l.item
    while (item === null) {
      const state = l.state
      if (state === null) return { type: ItemType.EOF, pos: l.start, val: '', line: l.startLine }
      l.state = state(l)
      item = l.item
    }
    l.item = null
    return item
  }
}

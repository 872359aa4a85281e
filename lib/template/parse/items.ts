/**
 * The items (tokens) the lexer emits: their types, as Go's lex.go has them,
 * and their names for messages and tests.
 */

// ItemType identifies the type of lex items.
export const enum ItemType {
  Error, // error occurred; value is text of error
  Bool, // boolean constant
  Char, // printable ASCII character; grab bag for comma etc.
  CharConstant, // character constant
  Comment, // comment text
  Assign, // equals ('=') introducing an assignment
  Declare, // colon-equals (':=') introducing a declaration
  EOF,
  Field, // alphanumeric identifier starting with '.'
  Identifier, // alphanumeric identifier not starting with '.'
  LeftDelim, // left action delimiter
  LeftParen, // '(' inside action
  Number, // simple number, including imaginary; here also complex (1+2i), which Go calls itemComplex
  Pipe, // pipe symbol
  RawString, // raw quoted string (includes quotes)
  RightDelim, // right action delimiter
  RightParen, // ')' inside action
  Space, // run of spaces separating arguments
  String, // quoted string (includes quotes)
  Text, // plain text
  Variable, // variable starting with '$', such as '$' or  '$1' or '$hello'
  // Keywords appear after all the rest.
  Keyword, // used only to delimit the keywords
  Block, // block keyword
  Break, // break keyword
  Continue, // continue keyword
  Dot, // the cursor, spelled '.'
  Define, // define keyword
  Else, // else keyword
  End, // end keyword
  If, // if keyword
  Nil, // the untyped nil constant, easiest to treat as a keyword
  Range, // range keyword
  Template, // template keyword
  With, // with keyword
}

// Item represents a token or text string returned from the scanner.
export interface Item {
  type: ItemType // The type of this item.
  pos: number // The starting position, in UTF-16 code units, of this item in the input string.
  val: string // The value of this item.
  line: number // The line number at the start of this item.
}

// The names of the item types, as Go's lex_test.go prints them (with names added for Assign, Text and Keyword).
const itemNames: readonly string[] = [
  'error',
  'bool',
  'char',
  'charconst',
  'comment',
  '=',
  ':=',
  'EOF',
  'field',
  'identifier',
  'left delim',
  '(',
  'number',
  'pipe',
  'raw string',
  'right delim',
  ')',
  'space',
  'string',
  'text',
  'variable',
  'keyword',
  'block',
  'break',
  'continue',
  '.',
  'define',
  'else',
  'end',
  'if',
  'nil',
  'range',
  'template',
  'with',
]

// itemTypeName returns the name of an item type, for messages and tests.
export function itemTypeName(t: ItemType): string {
  return itemNames[t] ?? `item${t}`
}

// isKeyword reports whether the item type is a keyword (Dot and Nil included).
export function isKeyword(t: ItemType): boolean {
  return t > ItemType.Keyword
}

// The keywords, and the items they lex as.
export const keywords: ReadonlyMap<string, ItemType> = new Map([
  ['.', ItemType.Dot],
  ['block', ItemType.Block],
  ['break', ItemType.Break],
  ['continue', ItemType.Continue],
  ['define', ItemType.Define],
  ['else', ItemType.Else],
  ['end', ItemType.End],
  ['if', ItemType.If],
  ['range', ItemType.Range],
  ['nil', ItemType.Nil],
  ['template', ItemType.Template],
  ['with', ItemType.With],
])

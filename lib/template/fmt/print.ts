/**
 * fmt.Sprint and fmt.Sprintln, and the printing of one operand by its type
 * and verb (Go's fmt/print.go).
 */
import { LimitReached } from '../errors'
import type { Value, ValueMap } from '../value'
import { Complex128, Empty, Uint8, typeName } from '../value'
import { C } from './consts'
import { BUILD_COST } from '../costs'
import { Formatter, UNLIMITED } from './format'
import type { FormatLimits } from './format'
import { formatFloatV } from './ftoa'
import { validRune } from './utf8'

/** fmt.Sprint: the operands' default formats, with a space between two operands when neither is a string. */
export function sprint(args: readonly Value[], limits: FormatLimits = UNLIMITED): string {
  const p = new Printer(limits)
  let prevString = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    const isString = typeof arg === 'string'
    if (i > 0 && !isString && !prevString) p.put(' ')
    if (isString) p.copy(arg)
    else p.printArg(arg, V)
    prevString = isString
  }
  return p.done()
}

/** fmt.Sprintln: the operands' default formats, always separated by spaces, and a newline. */
export function sprintln(args: readonly Value[], limits: FormatLimits = UNLIMITED): string {
  const p = new Printer(limits)
  for (let i = 0; i < args.length; i++) {
    if (i > 0) p.put(' ')
    const arg = args[i]
    if (typeof arg === 'string') p.copy(arg)
    else p.printArg(arg, V)
  }
  p.put('\n')
  return p.done()
}

/**
 * fmt.Sprint(v) for one value (%v), as template output prints it. Undefined
 * prints "<nil>" as in sprint; text/template itself prints "<no value>" for a
 * missing value or a nil interface{} at the top of a pipeline, which is the
 * caller's business.
 */
export function formatValue(v: Value, limits: FormatLimits = UNLIMITED): string {
  switch (typeof v) {
    case 'string':
      return v
    case 'number':
      return formatFloatV(v)
    case 'bigint':
      return BigInt.asIntN(64, v).toString()
    case 'boolean':
      return v ? 'true' : 'false'
    case 'undefined':
      return NIL_ANGLE
    default: {
      if (v === null) return NIL_ANGLE
      const p = new Printer(limits)
      p.printArg(v, V)
      return p.done()
    }
  }
}

export const NIL_ANGLE = '<nil>'
const V = 0x76 // 'v'

/** fmt's pp struct: a Formatter that chooses, by the operand's type and the verb, how to print it. */
export class Printer extends Formatter {
  /** Slices and maps entered and not yet left. */
  private depth = 0

  /** Characters read besides those printed (printf's format), counted with the result. */
  read = 0

  /** Appends a string as it is. */
  copy(s: string): void {
    this.copied += s.length
    this.put(s)
  }

  /** The result, its building counted as work. */
  done(): string {
    this.limits.charge?.(this.read + this.copied + BUILD_COST * (this.buf.length - this.copied))
    return this.buf
  }

  private nest(): void {
    if (++this.depth > this.limits.maxDepth) {
      throw new LimitReached('maxDataDepth', `data nested deeper than ${this.limits.maxDepth} levels`)
    }
  }

  // ---- printing one operand (print.go) ----

  printArg(arg: Value, verb: number): void {
    if (arg === undefined || arg === null) {
      if (verb === C.T || verb === C.v) this.pad(NIL_ANGLE)
      else this.badVerb(verb, null)
      return
    }
    if (verb === C.T) {
      this.fmtS(typeName(arg))
      return
    }
    // %p: Go prints a slice's or map's address, which has no meaning here. %w is for fmt.Errorf only:
    // Go refuses it for the whole operand, where another bad verb on a slice or map goes element by element.
    if (verb === C.p || verb === C.w) {
      this.badVerb(verb, arg)
      return
    }
    this.printValue(arg, verb)
  }

  /** printValue for a non-nil value; the elements of slices and maps are interface{} values. */
  printValue(v: Value, verb: number): void {
    switch (typeof v) {
      case 'boolean':
        if (verb === C.t || verb === C.v) this.pad(v ? 'true' : 'false')
        else this.badVerb(verb, v)
        return
      case 'number':
        if (verb === C.v && !this.widPresent && !this.precPresent && !this.space && !this.plus && !this.sharp) {
          this.put(formatFloatV(v))
        } else {
          this.fmtFloat(v, verb)
        }
        return
      case 'bigint':
        if ((verb === C.v || verb === C.d) && !this.widPresent && !this.precPresent && !this.plus && !this.space) {
          this.put(BigInt.asIntN(64, v).toString())
        } else {
          this.fmtInteger(v, verb)
        }
        return
      case 'string':
        this.fmtString(v, verb)
        return
      case 'undefined':
        this.printNested(v, verb)
        return
      default:
        if (v === null) this.printNested(v, verb)
        else if (Array.isArray(v)) this.printSlice(v, verb)
        else if (v instanceof Uint8) this.fmtInteger(BigInt(v.value), verb, v)
        else if (v instanceof Complex128) this.fmtComplex(v, verb)
        // A soft failure's value formats as the empty string it stands for.
        else if (v instanceof Empty) this.fmtString('', verb)
        else this.printMap(v, verb)
    }
  }

  /** An element of a slice or map: an interface{}, which prints "<nil>" (unpadded) when nil. */
  printNested(v: Value, verb: number): void {
    if (v === undefined || v === null) this.put(this.sharpV ? 'interface {}(nil)' : NIL_ANGLE)
    else this.printValue(v, verb)
  }

  printSlice(a: readonly Value[], verb: number): void {
    this.nest()
    const separator = this.sharpV ? ', ' : ' '
    this.put(this.sharpV ? '[]interface {}{' : '[')
    for (let i = 0; i < a.length; i++) {
      if (i > 0) this.put(separator)
      this.printNested(a[i], verb)
    }
    this.put(this.sharpV ? '}' : ']')
    this.depth--
  }

  printMap(m: ValueMap, verb: number): void {
    this.nest()
    const keys = this.limits.sortedKeys(m)
    this.put(this.sharpV ? 'map[string]interface {}{' : 'map[')
    for (let i = 0; i < keys.length; i++) {
      const key = keys[i] as string
      if (i > 0) this.put(this.sharpV ? ', ' : ' ')
      this.fmtString(key, verb)
      this.put(':')
      this.printNested(m[key], verb)
    }
    this.put(this.sharpV ? '}' : ']')
    this.depth--
  }

  /** %!verb(type=value), the value printed with %v and the current flags; %!verb(<nil>) for nil. */
  badVerb(verb: number, v: Value): void {
    this.put('%!' + String.fromCodePoint(verb) + '(')
    if (v === undefined || v === null) {
      this.put(NIL_ANGLE)
    } else {
      this.put(typeName(v) + '=')
      this.printValue(v, C.v)
    }
    this.put(')')
  }

  fmtString(s: string, verb: number): void {
    switch (verb) {
      case C.v:
        if (this.sharpV) this.fmtQ(s)
        else this.fmtS(s)
        return
      case C.s:
        this.fmtS(s)
        return
      case C.x:
        this.fmtSx(s, false)
        return
      case C.X:
        this.fmtSx(s, true)
        return
      case C.q:
        this.fmtQ(s)
        return
      default:
        this.badVerb(verb, s)
    }
  }

  // ---- integers ----

  /** An int, or the uint8 `unsigned` (whose value is v), which %#v prints in hex. */
  fmtInteger(v: bigint, verb: number, unsigned?: Uint8): void {
    switch (verb) {
      case C.v:
        if (this.sharpV && unsigned) {
          // fmt0x64
          const sharp = this.sharp
          this.sharp = true
          this.fmtInt(v, 16, verb, false)
          this.sharp = sharp
        } else {
          this.fmtInt(v, 10, verb, false)
        }
        return
      case C.d:
        this.fmtInt(v, 10, verb, false)
        return
      case C.b:
        this.fmtInt(v, 2, verb, false)
        return
      case C.o:
      case C.O:
        this.fmtInt(v, 8, verb, false)
        return
      case C.x:
        this.fmtInt(v, 16, verb, false)
        return
      case C.X:
        this.fmtInt(v, 16, verb, true)
        return
      case C.c:
        this.pad(String.fromCodePoint(validRune(BigInt.asUintN(64, v))))
        return
      case C.q:
        this.fmtQc(BigInt.asUintN(64, v))
        return
      case C.U:
        this.fmtUnicode(BigInt.asUintN(64, v))
        return
      default:
        this.badVerb(verb, unsigned ?? v)
    }
  }

  // ---- floats ----

  fmtFloat(v: number, verb: number): void {
    switch (verb) {
      case C.v:
        this.fmtFloatPrec(v, C.g, -1)
        return
      case C.b:
      case C.g:
      case C.G:
      case C.x:
      case C.X:
        this.fmtFloatPrec(v, verb, -1)
        return
      case C.f:
      case C.e:
      case C.E:
        this.fmtFloatPrec(v, verb, 6)
        return
      case C.F:
        this.fmtFloatPrec(v, C.f, 6)
        return
      default:
        this.badVerb(verb, v)
    }
  }

  // ---- complex numbers ----

  /** (re+imi): each part printed as a float with the verb, flags, width and precision; the imaginary part signed. */
  fmtComplex(v: Complex128, verb: number): void {
    switch (verb) {
      case C.v:
      case C.b:
      case C.g:
      case C.G:
      case C.x:
      case C.X:
      case C.f:
      case C.F:
      case C.e:
      case C.E: {
        const oldPlus = this.plus
        this.put('(')
        this.fmtFloat(v.re, verb)
        this.plus = true
        this.fmtFloat(v.im, verb)
        this.put('i)')
        this.plus = oldPlus
        return
      }
      default:
        this.badVerb(verb, v)
    }
  }
}

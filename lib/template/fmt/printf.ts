/** fmt.Sprintf: the format string's verbs, flags, widths, precisions and argument indexes (Go's fmt/print.go). */
import type { Value } from '../value'
import { Uint8, typeName } from '../value'
import { C } from './consts'
import { UNLIMITED } from './format'
import type { FormatLimits } from './format'
import { NIL_ANGLE, Printer } from './print'

/** fmt.Sprintf, with every error form Go prints: %!d(string=x), %!d(MISSING), %!(EXTRA ...), ... */
export function sprintf(format: string, args: readonly Value[], limits: FormatLimits = UNLIMITED): string {
  const p = new FormatPrinter(limits)
  // The format is read a character at a time, whatever it prints.
  p.read = format.length
  p.doPrintf(format, args)
  return p.done()
}

const PERCENT = 0x25

function tooLarge(x: number): boolean {
  return x > 1e6 || x < -1e6
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39
}

/** A Printer with the state of pp.doPrintf: argument reordering and the results of its parsing helpers. */
class FormatPrinter extends Printer {
  reordered = false
  goodArgNum = true
  // Results of parsenum, intFromArg and argNumber (Go returns several values).
  num = 0
  isNum = false
  newI = 0
  found = false

  /** Go's parsenum: sets num, isNum and newI. */
  parsenum(s: string, start: number, end: number): void {
    let num = 0
    let isNum = false
    let i = start
    for (; i < end && isDigit(s.charCodeAt(i)); i++) {
      if (tooLarge(num)) {
        this.num = 0
        this.isNum = false
        this.newI = end
        return
      }
      num = num * 10 + s.charCodeAt(i) - 0x30
      isNum = true
    }
    this.num = num
    this.isNum = isNum
    this.newI = i
  }

  /** Go's intFromArg for '*': sets num, isNum and returns the next argument number. */
  intFromArg(a: readonly Value[], argNum: number): number {
    this.num = 0
    this.isNum = false
    if (argNum < a.length) {
      const v = a[argNum]
      if (typeof v === 'bigint') {
        const n = Number(BigInt.asIntN(64, v))
        if (!tooLarge(n)) {
          this.num = n
          this.isNum = true
        }
      } else if (v instanceof Uint8) {
        this.num = v.value
        this.isNum = true
      }
      return argNum + 1
    }
    return argNum
  }

  /** Go's argNumber: an explicit [n] index at format[i]; sets newI and found, returns the argument number. */
  argNumber(argNum: number, format: string, i: number, numArgs: number): number {
    this.newI = i
    this.found = false
    if (format.length <= i || format.charCodeAt(i) !== 0x5b) return argNum
    this.reordered = true
    // parseArgNumber
    let index = 0
    let wid = 1
    let ok = false
    if (format.length - i >= 3) {
      for (let j = i + 1; j < format.length; j++) {
        if (format.charCodeAt(j) === 0x5d) {
          this.parsenum(format, i + 1, j)
          wid = j - i + 1
          if (this.isNum && this.newI === j) {
            index = this.num - 1
            ok = true
          }
          break
        }
      }
    }
    this.newI = i + wid
    if (ok && index >= 0 && index < numArgs) {
      this.found = true
      return index
    }
    this.goodArgNum = false
    this.found = ok
    return argNum
  }

  doPrintf(format: string, a: readonly Value[]): void {
    const end = format.length
    let argNum = 0
    let afterIndex = false
    this.reordered = false
    let i = 0
    while (i < end) {
      this.goodArgNum = true
      const next = format.indexOf('%', i)
      if (next < 0) {
        this.copy(i === 0 ? format : format.slice(i))
        break
      }
      if (next > i) this.copy(format.slice(i, next))
      i = next + 1

      this.clearFlags()
      let simple = false
      flags: for (; i < end; i++) {
        const c = format.charCodeAt(i)
        switch (c) {
          case 0x23: // '#'
            this.sharp = true
            break
          case 0x30: // '0': only pad with zeros on the left
            this.zero = !this.minus
            break
          case 0x2b: // '+'
            this.plus = true
            break
          case 0x2d: // '-'
            this.minus = true
            this.zero = false
            break
          case 0x20: // ' '
            this.space = true
            break
          default:
            // Fast path: a lower-case verb with no width, precision or index.
            if (c >= 0x61 && c <= 0x7a && argNum < a.length) {
              if (c === C.v) {
                this.sharpV = this.sharp
                this.sharp = false
                this.plusV = this.plus
                this.plus = false
              }
              this.printArg(a[argNum], c)
              argNum++
              i++
              simple = true
            }
            break flags
        }
      }
      if (simple) continue

      // An explicit argument index?
      argNum = this.argNumber(argNum, format, i, a.length)
      i = this.newI
      afterIndex = this.found

      // Width.
      if (i < end && format.charCodeAt(i) === 0x2a) {
        i++
        argNum = this.intFromArg(a, argNum)
        this.wid = this.num
        this.widPresent = this.isNum
        if (!this.widPresent) this.put('%!(BADWIDTH)')
        if (this.wid < 0) {
          this.wid = -this.wid
          this.minus = true
          this.zero = false
        }
        afterIndex = false
      } else {
        this.parsenum(format, i, end)
        this.wid = this.num
        this.widPresent = this.isNum
        i = this.newI
        if (afterIndex && this.widPresent) this.goodArgNum = false // "%[3]2d"
      }

      // Precision.
      if (i + 1 < end && format.charCodeAt(i) === 0x2e) {
        i++
        if (afterIndex) this.goodArgNum = false // "%[3].2d"
        argNum = this.argNumber(argNum, format, i, a.length)
        i = this.newI
        afterIndex = this.found
        if (i < end && format.charCodeAt(i) === 0x2a) {
          i++
          argNum = this.intFromArg(a, argNum)
          this.prec = this.num
          this.precPresent = this.isNum
          if (this.prec < 0) {
            this.prec = 0
            this.precPresent = false
          }
          if (!this.precPresent) this.put('%!(BADPREC)')
          afterIndex = false
        } else {
          this.parsenum(format, i, end)
          this.prec = this.num
          this.precPresent = this.isNum
          i = this.newI
          if (!this.precPresent) {
            this.prec = 0
            this.precPresent = true
          }
        }
      }

      if (!afterIndex) {
        argNum = this.argNumber(argNum, format, i, a.length)
        i = this.newI
        afterIndex = this.found
      }

      if (i >= end) {
        this.put('%!(NOVERB)')
        break
      }

      let verb = format.codePointAt(i) as number
      i += verb > 0xffff ? 2 : 1
      if (verb >= 0xd800 && verb <= 0xdfff) verb = 0xfffd

      if (verb === PERCENT) {
        // %% absorbs no operand and ignores width and precision.
        this.put('%')
      } else if (!this.goodArgNum) {
        this.put('%!' + String.fromCodePoint(verb) + '(BADINDEX)')
      } else if (argNum >= a.length) {
        this.put('%!' + String.fromCodePoint(verb) + '(MISSING)')
      } else {
        if (verb === C.v) {
          this.sharpV = this.sharp
          this.sharp = false
          this.plusV = this.plus
          this.plus = false
        }
        this.printArg(a[argNum], verb)
        argNum++
      }
    }

    // Extra operands, unless the format used explicit indexes.
    if (!this.reordered && argNum < a.length) {
      this.clearFlags()
      this.put('%!(EXTRA ')
      for (let k = argNum; k < a.length; k++) {
        if (k > argNum) this.put(', ')
        const arg = a[k]
        if (arg === undefined || arg === null) {
          this.put(NIL_ANGLE)
        } else {
          this.put(typeName(arg) + '=')
          this.printArg(arg, C.v)
        }
      }
      this.put(')')
    }
  }
}

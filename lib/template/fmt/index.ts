/**
 * Go's fmt package (Sprint, Sprintln, Sprintf) over the template data model,
 * ported from Go 1.19's fmt/print.go, fmt/format.go, strconv/ftoa.go and
 * strconv/quote.go so that the output matches Go's byte for byte.
 *
 * How the data model reaches fmt (see value.ts): numbers are float64, bigints
 * are Go `int` (64 bits), arrays are []interface{} and plain objects are
 * map[string]interface{}. An undefined value (a missing map key) reaches fmt
 * the way text/template passes it to print and printf: as a nil interface{}.
 */
export { formatValue, sprint, sprintln } from './print'
export { sprintf } from './printf'
export { quote } from './quote'
export { UNLIMITED } from './format'
export type { FormatLimits } from './format'

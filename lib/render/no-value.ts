import type { NoValueSite } from '../template'

/** A render's warning that an action printed Go's `<no value>`, and where. */
export type NoValueWarning = NoValueSite & { code: 'NO_VALUE'; message: string }

/**
 * `<no value>` warnings one render gives at most (one an action, however
 * often it printed): past them, a template has a habit, not a slip.
 */
const MAX_NO_VALUE_WARNINGS = 10

/**
 * Collects the `<no value>`s a render's templates print (ExecuteOptions.onNoValue):
 * Go's output is kept, byte for byte; the answer says where it came from.
 */
export class NoValues {
  readonly warnings: NoValueWarning[] = []

  /** Takes one site; false once it has heard enough. */
  readonly add = (site: NoValueSite): boolean => {
    if (this.warnings.length < MAX_NO_VALUE_WARNINGS) {
      const at = `${site.template}:${site.line}:${site.column}`
      this.warnings.push({
        code: 'NO_VALUE',
        message: `${at}: ${site.expression} printed "<no value>": what it printed is missing or null (declare the parameter with a type or a default, or use default)`,
        ...site,
      })
    }
    return this.warnings.length < MAX_NO_VALUE_WARNINGS
  }
}

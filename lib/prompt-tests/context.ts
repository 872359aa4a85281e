import type { RenderOptions } from '../render'
import type { Settings } from '../settings'
import type { Store } from '../store'
import { answerChecker } from './answer'
import type { TestContext } from './run'

/**
 * How a run reads and answers: `store` (a label's view, for a label's
 * tests), the render's settings, and, where an LLM is configured, a checker
 * of answer assertions made for this run alone (it counts the run's judge
 * calls, and finds the prompts' chat tools in the same store).
 */
export function testContext(store: Store, settings: Settings, renderOptions: RenderOptions): TestContext {
  return {
    store,
    renderOptions,
    settings: settings.tests,
    answers: answerChecker({ store, settings, renderOptions }),
  }
}

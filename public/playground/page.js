// What the page's panels share: the shell (playground.js) says which prompt
// is selected and which of its records is shown, and gives the draft, the
// args and the render; the panels (editor, variables, versions, chat, tests)
// read that and say what changed through the events. No panel imports
// another: each reads and asks through `page`.

/** Event name -> its listeners. */
const listeners = new Map()

export const page = {
  /** The selected prompt as GET /api/prompts/{id} answered it for `view`; null before one is picked. */
  prompt: null,
  /**
   * The record shown: `label` (null: the base) and `version` (null: as
   * served now). The URL's `?label=` sets the first label; the shell sets it
   * once a record asked for with `reload(view)` is read (read-only for panels).
   */
  view: { label: new URLSearchParams(location.search).get('label'), version: null },
  /**
   * Shared-variable overrides for the draft only: an object deep-merged over
   * the shared variables (`{vscode: {programming_language: "rust"}}`), sent
   * as `variables` with draft renders and chats, never written.
   */
  overrides: {},

  // ---- given by the shell (playground.js)

  /** `{args}` from the args editor, or `{error}` naming why they are not usable. */
  args: () => ({ args: {} }),
  /**
   * The draft to send: null when the template is unedited and nothing is
   * overridden; else the prompt's record fields (`prompt` or `messages`,
   * `parameters`, `tools`, `returns`) with the edited template; or `{error}`.
   */
  draft: () => null,
  /** Whether the template differs from the stored one (overrides alone do not make it edited). */
  edited: () => false,
  /** Renders now (what the editor shows, with the args and overrides). */
  render: () => {},
  /**
   * Reads the selected prompt at `view` (default: page.view) and shows it:
   * page.view becomes `view`, `select` is emitted. Resolves to null, or to
   * the error body when it could not be read (the page stays as it was).
   * `{discard: true}` drops the draft of the record shown instead of keeping it.
   */
  reload: async () => null,

  // ---- events: `select` (a prompt was loaded into the editor), `edit` (the template, args or overrides changed),
  // `rendered` (a render answered: its body, success or error)

  on(event, listener) {
    if (!listeners.has(event)) listeners.set(event, [])
    listeners.get(event).push(listener)
  },
  emit(event, detail) {
    for (const listener of listeners.get(event) ?? []) listener(detail)
  },
}

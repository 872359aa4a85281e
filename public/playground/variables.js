// The shared variables the template reads. (Issue 35 fills it: their values
// as the render saw them, with their age, and overrides for the draft.)

/** The panel in `host`. */
export function variablesPanel(host) {
  host.hidden = true
}

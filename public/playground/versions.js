// The versions panel: which label and version the editor shows. (Issue 35
// fills it: pickers, the diff, side-by-side renders, saving the draft.)

/** The panel in `host`. */
export function versionsPanel(host) {
  host.hidden = true
}

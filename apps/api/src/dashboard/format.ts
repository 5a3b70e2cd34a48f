// How the dashboard's pages write what they show: counts, times (UTC), and tables that scroll in a box
// of their own on a phone.
import { type Html, html } from "./html.ts";

export { plural } from "./html.ts";

/** A wide table scrolls inside its own box on a phone; the box takes focus so the keyboard can scroll it. */
export function scrollable(label: string, table: Html): Html {
  return html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
}

/** To the minute, for dates people skim (a key's creation, its last use). */
export function toMinute(epochMs: number | null): string {
  return epochMs === null ? "never" : `${new Date(epochMs).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** To the second, for a request log read next to a client's own timestamps. */
export function toSecond(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

// One key's page: what it is, what its limit leaves, and a form that changes its name, limit and expiry.
// A key-limit 402 links here (its help_url), so the page says what a refusal of the limit means.
import { describeAllowance, type KeyInfo, keyPagePath } from "@social/core";
import { toMinute } from "./format.ts";
import { csrfField, Html, html, layout, type Viewer } from "./html.ts";
import { KEY_NAME_MAX } from "./pages.ts";

/** What the form shows: the key's values, or what was typed in a refused form. */
export interface KeyForm {
  name: string;
  limit: string;
  per: string;
  expires: string;
  /** The expiry the form was shown with (a hidden field): the field unchanged keeps the stored expiry. */
  expiresWas: string | null;
  /** An expired key's box that turns it back on with no expiry. */
  revive: boolean;
}

const DAY_MS = 86_400_000;

/** Whether the key's expiry has passed at `now`. */
function expired(key: KeyInfo, now: number): boolean {
  return key.expiresAt !== null && key.expiresAt <= now;
}

/**
 * The form's values for a key as stored: an expiry at a day's start as that day, any other as its
 * instant, a passed one included, so that saving a rename keeps it.
 */
function keyFormOf(key: KeyInfo): KeyForm {
  const expires = key.expiresAt === null ? "" : expiryText(key.expiresAt);
  return {
    name: key.name,
    limit: key.allowance ? String(key.allowance.credits) : "",
    per: key.allowance?.per ?? "total",
    expires,
    expiresWas: expires,
    revive: false,
  };
}

/**
 * What a saved form does with the key's expiry: keep the stored one while the field is as it was shown
 * (a past day too), else take what was typed to the key rules. An expired key comes back on only by
 * choice: a later day, or its box ticked for no expiry; its field emptied alone is refused.
 */
export function chosenExpiry(
  form: KeyForm,
  key: KeyInfo,
  now: number,
): { kept: number | null } | { typed: string } | { error: string } {
  const unchanged = form.expiresWas !== null && form.expires.trim() === form.expiresWas.trim();
  if (expired(key, now)) {
    if (form.revive) return { typed: unchanged ? "" : form.expires };
    if (unchanged) return { kept: key.expiresAt };
    if (form.expires.trim() === "") return { error: REVIVE_BY_CHOICE };
    return { typed: form.expires };
  }
  return unchanged ? { kept: key.expiresAt } : { typed: form.expires };
}

const REVIVE_LABEL = "Turn this key back on, with no expiry";
const REVIVE_BY_CHOICE = `This key has expired: to turn it back on, choose a later day or tick “${REVIVE_LABEL}”.`;

/** "2027-01-31" for the start of a UTC day, "2027-01-31T12:00:00Z" for any other instant. */
function expiryText(at: number): string {
  const iso = new Date(at).toISOString();
  return at % DAY_MS === 0 ? iso.slice(0, 10) : `${iso.slice(0, 19)}Z`;
}

function selected(value: string, current: string): Html {
  return new Html(value === current ? " selected" : "");
}

function editForm(viewer: Viewer, key: KeyInfo, form: KeyForm, refusal: string | undefined, now: number): Html {
  const error = refusal ? html`<p class="notice error" role="alert" id="key-edit-error">${refusal}</p>` : "";
  const invalid = new Html(refusal ? ' aria-invalid="true"' : "");
  const describedBy = (hint: string) => (refusal ? `${hint} key-edit-error` : hint);
  // A date input holds a day only: an expiry at another instant (set with the CLI) is edited as text.
  const expiresType = form.expires === "" || form.expires.length === 10 ? "date" : "text";
  return html`<h2>Change this key</h2>
<form method="post" action="${keyPagePath(key.id)}">${csrfField(viewer)}${error}
<div class="field"><label for="key-name">Key name</label>
<input type="text" id="key-name" name="name" required maxlength="${KEY_NAME_MAX}" autocomplete="off" value="${form.name}"
 aria-describedby="${describedBy("key-name-hint")}"${invalid}>
<p class="muted" id="key-name-hint">Up to ${KEY_NAME_MAX} characters.</p></div>
<div class="field"><label for="key-limit">Credit limit</label>
<input type="number" id="key-limit" name="limit" min="1" step="1" inputmode="numeric" value="${form.limit}" aria-describedby="${describedBy("key-limit-hint")}"${invalid}>
<label for="key-per">per</label>
<select id="key-per" name="per"><option value="total"${selected("total", form.per)}>in total</option><option value="day"${selected("day", form.per)}>UTC day</option></select>
<p class="muted" id="key-limit-hint">What the key has spent so far still counts: a limit below it refuses the key's next request. Empty: the balance is the only limit.</p></div>
<div class="field"><label for="key-expires">Expires on</label>
<input type="${expiresType}" id="key-expires" name="expires" value="${form.expires}" aria-describedby="${describedBy("key-expires-hint")}"${invalid}>
<input type="hidden" name="expires_was" value="${form.expiresWas ?? ""}">
<p class="muted" id="key-expires-hint">From the start of this day (UTC) the key is refused. Empty: it never expires.${
    expired(key, now)
      ? html` This key expired ${toMinute(key.expiresAt)}: saving keeps it expired unless you choose a later day or tick the box below.`
      : ""
  }</p>${
    expired(key, now)
      ? html`
<label><input type="checkbox" name="revive" value="yes"${form.revive ? html` checked` : ""}> ${REVIVE_LABEL}</label>`
      : ""
  }</div>
<button type="submit">Save the key</button></form>`;
}

export interface KeyView {
  viewer: Viewer;
  key: KeyInfo;
  /** Why the last change was refused, with what was typed. */
  refused?: { message: string; form: KeyForm };
}

export function keyPage(view: KeyView): Html {
  const { key, viewer } = view;
  const active = key.revokedAt === null;
  const now = Date.now();
  const form = view.refused?.form ?? keyFormOf(key);
  return layout(
    { title: `Key ${key.name}`, section: "dashboard", viewer },
    html`<dl class="detail" id="key-facts">
<dt>Key</dt><dd><code>${key.prefix}…</code></dd>
<dt>Status</dt><dd>${active ? "active" : `revoked ${toMinute(key.revokedAt)}`}</dd>
<dt>Limit</dt><dd id="key-allowance">${describeAllowance(key.allowance)}</dd>
<dt>Expires</dt><dd>${toMinute(key.expiresAt)}</dd>
<dt>Created</dt><dd>${toMinute(key.createdAt)}</dd>
<dt>Last used</dt><dd>${toMinute(key.lastUsedAt)}</dd></dl>
<p>A request past this key's limit is refused (402, reason <code>key_limit</code>) and not charged; raise the limit
below, or use another key.</p>
<p><a href="/dashboard/requests?key=${encodeURIComponent(key.id)}">See this key's requests</a> · <a href="/dashboard">All keys</a></p>
${active ? editForm(viewer, key, form, view.refused?.message, now) : html`<p>A revoked key cannot be changed.</p>`}
${active ? html`<p><a class="button secondary" href="${keyPagePath(key.id)}/revoke">Revoke this key…</a></p>` : ""}`,
  );
}

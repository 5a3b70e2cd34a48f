// The dashboard's pages. Each takes plain data and returns Html; the routes decide who sees what.

import type { AccountDetails, KeyInfo } from "@social/core";
import { describeAllowance, keyPagePath } from "@social/core";
import { firstCallCurl } from "./first-call.ts";
import { plural, scrollable, toMinute } from "./format.ts";
import { csrfField, Html, html, layout, type Viewer } from "./html.ts";

export const KEY_NAME_MAX = 64;

/** Where sign-in starts, returning to `returnTo` once it is done. */
export function signInHref(returnTo: string): string {
  return `/dashboard/sign-in?return=${encodeURIComponent(returnTo)}`;
}

/** Signed out here, on the way to end the provider's session: a refresh takes the browser there, no script. */
export function endingSessionPage(endSessionUrl: string): Html {
  return layout(
    { title: "Signing out", refreshTo: endSessionUrl },
    html`<p>You are signed out here; the sign-in provider is ending its session too.</p>
<p><a class="button" href="${endSessionUrl}" id="end-session">Continue to the sign-in provider</a></p>`,
  );
}

/** After a sign-out: nothing here signs in again until the person asks to. */
export function signedOutPage(): Html {
  return layout(
    { title: "Signed out" },
    html`<p id="signed-out">You are signed out. Your API keys keep working: signing out does not revoke them.</p>
<p><a class="button" href="${signInHref("/dashboard")}">Sign in again</a></p>`,
  );
}

export function visitorPage(options: { configured: boolean; publicUrl: string }): Html {
  if (!options.configured) {
    return layout(
      { title: "Dashboard", section: "dashboard" },
      html`<p>Sign-in is not set up on this server yet: no identity provider is configured.</p>
<h2>Configure sign-in</h2>
<p>Register this server as a client at an OpenID Connect provider with the redirect URI
<code>${options.publicUrl}/dashboard/callback</code>, then start the server with:</p>
<pre><code>OIDC_ISSUER=https://your-provider.example
OIDC_CLIENT_ID=…
OIDC_CLIENT_SECRET=…
SESSION_SECRET=…   # optional: one is generated and kept in the database</code></pre>
<h2>Meanwhile</h2>
<p>Until then the operator of this server hands out keys.</p>`,
    );
  }
  return layout(
    { title: "Dashboard", section: "dashboard" },
    html`<p>Sign in to get your API keys. Your first sign-in opens an account with 1000 free credits.</p>
<p><a class="button" href="${signInHref("/dashboard")}">Sign in</a></p>`,
  );
}

/** The keys, the action second: on a phone it is in view without scrolling the table sideways. */
function keyRows(keys: readonly KeyInfo[]): Html {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  const rows = keys.map(
    (key) => html`<tr><td><a href="${keyPagePath(key.id)}">${key.name}</a></td><td>${
      key.revokedAt === null
        ? html`<a class="button secondary" href="/dashboard/keys/${key.id}/revoke" aria-label="Revoke key ${key.name} (${key.prefix}…)">Revoke…</a>`
        : html`revoked ${toMinute(key.revokedAt)}`
    }</td><td>${describeAllowance(key.allowance)}</td><td>${toMinute(key.expiresAt)}</td><td><code>${key.prefix}…</code></td>
<td>${toMinute(key.createdAt)}</td><td>${toMinute(key.lastUsedAt)}</td></tr>`,
  );
  return html`<p class="muted">Only the first characters of each key are kept, to tell them apart.</p>
${scrollable(
  "Your API keys",
  html`<table id="keys">
<thead><tr><th scope="col">Name</th><th scope="col">Status</th><th scope="col">Limit</th><th scope="col">Expires</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th></tr></thead>
<tbody>${rows}</tbody></table>`,
)}`;
}

export interface DashboardView {
  viewer: Viewer;
  account: AccountDetails;
  keys: readonly KeyInfo[];
  /** The balance below which the pages warn when the customer has set none. */
  defaultWarning: number;
  /** The server's public address, for the first call shown with a new key. */
  publicUrl: string;
  /** A key just created: shown on this response only, never again. */
  newKey?: { key: string; name: string };
  /** What the last form did ("Key … revoked"). */
  notice?: string;
  /** Why a form was refused, shown at that form. */
  refused?: FormRefusal;
}

/** A form's refusal: which form, why, and what was typed (kept in the field to correct it). */
export interface FormRefusal {
  form: "key" | "warning";
  message: string;
  typed?: string;
}

/** The refusal of `form`, as an alert the field points to, or nothing. */
function refusalOf(view: DashboardView, form: FormRefusal["form"], id: string): Html | "" {
  return view.refused?.form === form
    ? html`<p class="notice error" role="alert" id="${id}">${view.refused.message}</p>`
    : "";
}

/**
 * A key just made, shown once: focus comes here (autofocus), the key and a first call are selectable,
 * and copy.ts adds their copy buttons.
 */
function newKeyNotice(newKey: { key: string; name: string }, publicUrl: string): Html {
  return html`<div class="notice" role="status" id="new-key-notice" tabindex="-1" autofocus>
<h2>Your new key “${newKey.name}”</h2>
<p>Copy it now: it is shown only once and cannot be recovered.</p>
<code class="key" id="new-key">${newKey.key}</code>
<p><button type="button" data-copy="new-key" hidden>Copy the key</button></p>
<p>Use it as <code>Authorization: Bearer &lt;key&gt;</code>. A first search, ready to paste:</p>
<pre><code id="first-call">${firstCallCurl(publicUrl, newKey.key)}</code></pre>
<p><button type="button" data-copy="first-call" hidden>Copy the command</button></p></div>`;
}

export function dashboardPage(view: DashboardView): Html {
  const newKey = view.newKey ? newKeyNotice(view.newKey, view.publicUrl) : "";
  const notice = view.notice ? html`<p class="notice" role="status" id="notice">${view.notice}</p>` : "";
  const keyError = refusalOf(view, "key", "key-name-error");
  const warningError = refusalOf(view, "warning", "warning-error");
  const warning = view.refused?.form === "warning" ? view.refused.typed : view.account.lowBalanceWarning;
  const refusedHere = (form: FormRefusal["form"]) => view.refused?.form === form;
  const describedBy = (form: FormRefusal["form"], hint: string, error: string) =>
    refusedHere(form) ? `${hint} ${error}` : hint;
  const invalid = (form: FormRefusal["form"]) => (refusedHere(form) ? new Html(' aria-invalid="true"') : "");
  return layout(
    { title: "Dashboard", section: "dashboard", viewer: view.viewer, copying: view.newKey !== undefined },
    html`${newKey}${notice}<h2>Balance</h2>
<p class="balance" id="balance">${plural(view.account.balance, "credit")}</p>
<p><a href="/billing">Add credits or choose a plan</a> · <a href="/dashboard/usage">See your usage</a> · <a href="/dashboard/requests">See every request</a></p>
<form method="post" action="/dashboard/warning">${csrfField(view.viewer)}${warningError}
<div class="field"><label for="warning">Warn me when the balance is below (credits)</label>
<input type="number" id="warning" name="credits" min="0" step="1" inputmode="numeric" value="${warning ?? ""}" aria-describedby="${describedBy("warning", "warning-hint", "warning-error")}"${invalid("warning")}>
<p class="muted" id="warning-hint">Every page of the dashboard says so while it is. Empty: a tenth of the credits last added (${plural(view.defaultWarning, "credit")}).</p></div>
<button type="submit">Save the warning</button></form>
<h2>API keys</h2>
${keyRows(view.keys)}
<h3>Create a key</h3>
<form method="post" action="/dashboard/keys">${csrfField(view.viewer)}${keyError}
<div class="field"><label for="key-name">Key name</label>
<input type="text" id="key-name" name="name" required maxlength="${KEY_NAME_MAX}" autocomplete="off"
 aria-describedby="${describedBy("key", "key-name-hint", "key-name-error")}"${invalid("key")}>
<p class="muted" id="key-name-hint">What the key is for, so you can tell your keys apart (up to ${KEY_NAME_MAX} characters).</p></div>
<div class="field"><label for="key-limit">Credit limit (optional)</label>
<input type="number" id="key-limit" name="limit" min="1" step="1" inputmode="numeric" aria-describedby="key-limit-hint">
<label for="key-per">per</label>
<select id="key-per" name="per"><option value="total">in total</option><option value="day">UTC day</option></select>
<p class="muted" id="key-limit-hint">The most this key may spend; a request past it is refused (402, reason key_limit) and not charged. Empty: the balance is the only limit.</p></div>
<div class="field"><label for="key-expires">Expires on (optional)</label>
<input type="date" id="key-expires" name="expires" aria-describedby="key-expires-hint">
<p class="muted" id="key-expires-hint">From the start of this day (UTC) the key is refused. Empty: it never expires.</p></div>
<button type="submit">Create key</button></form>`,
  );
}

/** The question before a key is revoked, since a revoked key never works again. */
export function revokePage(viewer: Viewer, key: KeyInfo): Html {
  return layout(
    { title: "Revoke a key", section: "dashboard", viewer },
    html`<p>Revoke the key <strong>${key.name}</strong> (<code>${key.prefix}…</code>)? Every request made with it is
refused from then on, at once, and it cannot be turned back on: you would make a new key instead.</p>
<form method="post" action="/dashboard/keys/${key.id}/revoke" class="actions">${csrfField(viewer)}
<button type="submit">Revoke ${key.name}</button> <a class="button secondary" href="/dashboard">Keep it</a></form>`,
  );
}

/** The trimmed name, or why it is refused. */
export function checkKeyName(value: unknown): { name: string } | { error: string } {
  const name = typeof value === "string" ? value.trim() : "";
  if (name === "") return { error: "Give the key a name." };
  if (name.length > KEY_NAME_MAX) return { error: `A key name has at most ${KEY_NAME_MAX} characters.` };
  return { name };
}

/** A page the dashboard does not have, as a page rather than the API's JSON. */
export function notFoundPage(path: string, viewer?: Viewer): Html {
  return errorPage("Page not found", `There is no page at ${path}.`, viewer);
}

export function errorPage(title: string, message: string, viewer?: Viewer): Html {
  return layout(
    { title, ...(viewer ? { viewer } : {}) },
    html`<p class="notice error" role="alert">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}

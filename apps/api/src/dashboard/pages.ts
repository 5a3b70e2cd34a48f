// The dashboard's pages. Each takes plain data and returns Html; the routes decide who sees what.

import type { AccountDetails, DailyUsage, KeyInfo, RequestUsage } from "@social/core";
import { describeAllowance, endpointsById } from "@social/core";
import { dailyChart } from "./chart.ts";
import { csrfField, Html, html, layout, type Viewer } from "./html.ts";

const KEY_NAME_MAX = 64;

function count(amount: number, noun: string): string {
  return `${amount.toLocaleString("en-US")} ${noun}${amount === 1 ? "" : "s"}`;
}

/** A wide table scrolls inside its own box on a phone; the box takes focus so the keyboard can scroll it. */
function scrollable(label: string, table: Html): Html {
  return html`<div class="table-wrap" role="region" aria-label="${label}" tabindex="0">${table}</div>`;
}

function when(epochMs: number | null): string {
  return epochMs === null ? "never" : `${new Date(epochMs).toISOString().slice(0, 16).replace("T", " ")} UTC`;
}

/** Usage rows store the catalogue id; people recognise the path. */
function endpointPath(endpointId: string): string {
  return endpointsById.get(endpointId)?.path ?? endpointId;
}

export function signedOutPage(options: { configured: boolean; publicUrl: string }): Html {
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
<p>The operator CLI makes accounts and keys: <code>bun run admin keys create --name me</code>.</p>`,
    );
  }
  return layout(
    { title: "Dashboard", section: "dashboard" },
    html`<p>Sign in to get your API keys. Your first sign-in opens an account with 1000 free credits.</p>
<p><a class="button" href="/dashboard/sign-in">Sign in</a></p>`,
  );
}

function keyRows(viewer: Viewer, keys: readonly KeyInfo[]): Html {
  if (keys.length === 0) return html`<p>You have no API keys yet.</p>`;
  const rows = keys.map(
    (key) => html`<tr><td>${key.name}</td><td><code>${key.prefix}…</code></td><td>${when(key.createdAt)}</td>
<td>${when(key.lastUsedAt)}</td><td>${describeAllowance(key.allowance)}</td><td>${when(key.expiresAt)}</td><td>${
      key.revokedAt === null
        ? html`<form method="post" action="/dashboard/keys/${key.id}/revoke" class="inline">${csrfField(viewer)}
<button type="submit" class="secondary" aria-label="Revoke key ${key.name} (${key.prefix}…)">Revoke</button></form>`
        : html`revoked ${when(key.revokedAt)}`
    }</td></tr>`,
  );
  return html`<p class="muted">Only the first characters of each key are kept, to tell them apart.</p>
${scrollable(
  "Your API keys",
  html`<table>
<thead><tr><th scope="col">Name</th><th scope="col">Prefix</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Limit</th><th scope="col">Expires</th><th scope="col">Status</th></tr></thead>
<tbody>${rows}</tbody></table>`,
)}`;
}

export interface DashboardView {
  viewer: Viewer;
  account: AccountDetails;
  keys: readonly KeyInfo[];
  /** A key just created: shown on this response only, never again. */
  newKey?: { key: string; name: string };
  formError?: string;
}

export function dashboardPage(view: DashboardView): Html {
  const newKey = view.newKey
    ? html`<div class="notice" role="status"><h2>Your new key “${view.newKey.name}”</h2>
<p>Copy it now: it is shown only once and cannot be recovered.</p>
<code class="key" id="new-key">${view.newKey.key}</code>
<p>Use it as <code>Authorization: Bearer &lt;key&gt;</code>.</p></div>`
    : "";
  const formError = view.formError
    ? html`<p class="notice error" role="alert" id="key-name-error">${view.formError}</p>`
    : "";
  return layout(
    { title: "Dashboard", section: "dashboard", viewer: view.viewer },
    html`${newKey}<h2>Balance</h2>
<p class="balance" id="balance">${count(view.account.balance, "credit")}</p>
<p><a href="/billing">Add credits or choose a plan</a> · <a href="/dashboard/usage">See your usage</a></p>
<h2>API keys</h2>
${keyRows(view.viewer, view.keys)}
<h3>Create a key</h3>
<form method="post" action="/dashboard/keys">${csrfField(view.viewer)}${formError}
<div class="field"><label for="key-name">Key name</label>
<input type="text" id="key-name" name="name" required maxlength="${KEY_NAME_MAX}" autocomplete="off"
 aria-describedby="key-name-hint${view.formError ? " key-name-error" : ""}"${view.formError ? new Html(' aria-invalid="true"') : ""}>
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

/** The trimmed name, or why it is refused. */
export function checkKeyName(value: unknown): { name: string } | { error: string } {
  const name = typeof value === "string" ? value.trim() : "";
  if (name === "") return { error: "Give the key a name." };
  if (name.length > KEY_NAME_MAX) return { error: `A key name has at most ${KEY_NAME_MAX} characters.` };
  return { name };
}

export function usagePage(viewer: Viewer, days: readonly DailyUsage[], recent: readonly RequestUsage[]): Html {
  const totalRequests = days.reduce((sum, day) => sum + day.requests, 0);
  const totalCredits = days.reduce((sum, day) => sum + day.credits, 0);
  const dayRows = days
    .filter((day) => day.requests > 0)
    .map(
      (day) =>
        html`<tr><th scope="row">${day.day}</th><td class="number">${day.requests}</td><td class="number">${day.credits}</td></tr>`,
    );
  const requestRows = recent.map(
    (request) => html`<tr><td>${when(request.createdAt)}</td><td><code>${endpointPath(request.endpoint)}</code></td>
<td class="number">200</td><td class="number">${request.credits}</td><td><code>${request.requestId}</code></td></tr>`,
  );
  return layout(
    { title: "Usage", section: "usage", viewer },
    html`<p id="usage-summary">Last 30 days: ${count(totalRequests, "request")}, ${count(totalCredits, "credit")}.</p>
<h2>Requests per day</h2>${dailyChart("requests-chart", "Requests per day", days, (day) => day.requests)}
<h2>Credits per day</h2>${dailyChart("credits-chart", "Credits per day", days, (day) => day.credits)}
<h3>Days with requests</h3>
${
  dayRows.length === 0
    ? html`<p>No requests in the last 30 days.</p>`
    : scrollable(
        "Requests and credits per day",
        html`<table><thead><tr><th scope="col">Day (UTC)</th><th scope="col" class="number">Requests</th><th scope="col" class="number">Credits</th></tr></thead>
<tbody>${dayRows}</tbody></table>`,
      )
}
<h2>Latest requests</h2>
<p class="muted">Only successful requests are charged, so only they are listed; failed ones cost nothing.</p>
${
  requestRows.length === 0
    ? html`<p>No requests yet.</p>`
    : scrollable(
        "Latest requests",
        html`<table id="latest-requests"><thead><tr><th scope="col">Time</th><th scope="col">Endpoint</th><th scope="col" class="number">Status</th><th scope="col" class="number">Credits</th><th scope="col">Request id</th></tr></thead>
<tbody>${requestRows}</tbody></table>`,
      )
}`,
  );
}

export function billingPage(options: { viewer?: Viewer; accountId?: string }): Html {
  const account = options.accountId ?? "ACCOUNT_ID";
  const who = options.accountId
    ? html`<p>Your account id is <code id="account-id">${options.accountId}</code>; quote it when you ask for credits.</p>`
    : html`<p><a href="/dashboard">Sign in</a> to see your account id and balance.</p>`;
  return layout(
    { title: "Billing", section: "billing", ...(options.viewer ? { viewer: options.viewer } : {}) },
    html`<p>Every request is billed in credits; each response reports the credits charged and the credits remaining.
A request that fails is never charged. The cost of each endpoint is listed in the <a href="/docs">API docs</a>.</p>
${who}
<h2>Plans</h2>
<div class="plans">
<section><h3>Free</h3><p>1000 credits when you first sign in. No card, no expiry.</p></section>
<section><h3>Top-up</h3><p>Any number of credits, added to your balance by the operator. Credits do not expire.</p></section>
<section><h3>Volume</h3><p>For steady high volume, agree a monthly allowance with the operator, granted each month.</p></section>
</div>
<h2>Add credits</h2>
<p>There is no card payment on this server: the operator adds credits. Send your account id and the number of
credits you need; the operator runs</p>
<pre><code>bun run admin credits grant ${account} 10000 --reason "top-up"</code></pre>
<p>The new balance applies at once: the next request sees it, and a request that was refused with 402 can simply be retried.</p>`,
  );
}

export function errorPage(title: string, message: string, viewer?: Viewer): Html {
  return layout(
    { title, ...(viewer ? { viewer } : {}) },
    html`<p class="notice error" role="alert">${message}</p><p><a href="/dashboard">Back to the dashboard</a></p>`,
  );
}

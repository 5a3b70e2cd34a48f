// The form that creates a monitor and the one that changes it: what was typed, turned into the body the
// API takes, so that core's rules (settings.ts) check it and a refusal says what the API would say; and
// the fields, shown again with what was typed when a refusal points at one of them.
import type { KeyInfo, Monitor, MonitorDelivery } from "@social/core";
import { MONITOR_LIMITS } from "@social/core";
import { csrfField, Html, html, type Viewer } from "./html.ts";
import { textField } from "./site.ts";

/** What the form holds, as typed. */
export interface MonitorForm {
  name: string;
  query: string;
  delivery: MonitorDelivery["type"];
  url: string;
  cap: string;
  /** The key its deliveries are charged to: the create form's choice. */
  keyId: string;
}

/** The field a refusal is about, marked invalid and pointing at the message. */
export type MonitorField = "name" | "query" | "url" | "cap" | "key";

export interface MonitorRefusal {
  message: string;
  field?: MonitorField;
}

/** The API's parameter names, as the refusals' details give them, by the form's field. */
const FIELD_OF_PARAMETER: Readonly<Record<string, MonitorField>> = {
  name: "name",
  query: "query",
  delivery: "url",
  "delivery.url": "url",
  daily_credit_cap: "cap",
};

export function fieldOfParameter(parameter: string | undefined): MonitorField | undefined {
  return parameter === undefined ? undefined : FIELD_OF_PARAMETER[parameter];
}

/** A posted form's fields, trimmed; any delivery but a webhook is the default, pull. */
export function typedMonitorForm(body: unknown): MonitorForm {
  return {
    name: textField(body, "name").trim(),
    query: textField(body, "query").trim(),
    delivery: textField(body, "delivery") === "webhook" ? "webhook" : "pull",
    url: textField(body, "url").trim(),
    cap: textField(body, "cap").trim(),
    keyId: textField(body, "key"),
  };
}

/** The form for a monitor as stored. */
export function monitorFormOf(monitor: Monitor): MonitorForm {
  return {
    name: monitor.name ?? "",
    query: monitor.query,
    delivery: monitor.delivery.type,
    url: monitor.delivery.type === "webhook" ? monitor.delivery.url : "",
    cap: monitor.dailyCreditCap === undefined ? "" : String(monitor.dailyCreditCap),
    keyId: monitor.keyId,
  };
}

/** An empty create form, its key the first that can pay. */
export function newMonitorForm(keys: readonly KeyInfo[]): MonitorForm {
  return { name: "", query: "", delivery: "pull", url: "", cap: "", keyId: keys[0]?.id ?? "" };
}

/** The keys a monitor's deliveries can be charged to: neither revoked nor expired. */
export function payingKeys(keys: readonly KeyInfo[], now: number): KeyInfo[] {
  return keys.filter((key) => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now));
}

/** A typed cap: whole digits as a number, anything else as its text, for the API's rule to refuse. */
function capValue(text: string): number | string {
  return /^\d{1,16}$/.test(text) ? Number(text) : text;
}

function deliveryOf(form: MonitorForm): MonitorDelivery {
  return form.delivery === "webhook" ? { type: "webhook", url: form.url } : { type: "pull" };
}

/** The body of POST /v1/monitors the form stands for: a field left empty is left out. */
export function createBody(form: MonitorForm): Record<string, unknown> {
  return {
    query: form.query,
    delivery: deliveryOf(form),
    ...(form.name === "" ? {} : { name: form.name }),
    ...(form.cap === "" ? {} : { daily_credit_cap: capValue(form.cap) }),
  };
}

/**
 * The body of PATCH /v1/monitors/{id}: only the fields that differ from the monitor, because a new
 * delivery clears a hold and restarts a failing webhook, which a rename must not do; a name or cap
 * emptied is cleared. Empty when nothing changed.
 */
export function changesBody(form: MonitorForm, monitor: Monitor): Record<string, unknown> {
  const was = monitorFormOf(monitor);
  const sameDelivery = form.delivery === was.delivery && (form.delivery === "pull" || form.url === was.url);
  return {
    ...(form.name === was.name ? {} : { name: form.name === "" ? null : form.name }),
    ...(form.query === was.query ? {} : { query: form.query }),
    ...(sameDelivery ? {} : { delivery: deliveryOf(form) }),
    ...(form.cap === was.cap ? {} : { daily_credit_cap: form.cap === "" ? null : capValue(form.cap) }),
  };
}

export interface MonitorFormView {
  viewer: Viewer;
  /** Where the form posts. */
  action: string;
  form: MonitorForm;
  refusal?: MonitorRefusal;
  submit: string;
  /** The create form's choice of key. */
  keys?: readonly KeyInfo[];
}

function checked(on: boolean): Html | "" {
  return on ? new Html(" checked") : "";
}

export function monitorFields(view: MonitorFormView): Html {
  const { form, refusal } = view;
  const error = refusal ? html`<p class="notice error" role="alert" id="monitor-error">${refusal.message}</p>` : "";
  // The field the refusal names points at it; a refusal of no one field (the limit) marks none.
  const about = (field: MonitorField, hint: string) =>
    new Html(
      refusal?.field === field
        ? ` aria-describedby="${hint} monitor-error" aria-invalid="true"`
        : ` aria-describedby="${hint}"`,
    );
  const keyChoice = view.keys
    ? html`<div class="field"><label for="monitor-key">Charged to the key</label>
<select id="monitor-key" name="key"${about("key", "monitor-key-hint")}>${view.keys.map(
        (key) =>
          html`<option value="${key.id}"${key.id === form.keyId ? new Html(" selected") : ""}>${key.name} (${key.prefix}…)</option>`,
      )}</select>
<p class="muted" id="monitor-key-hint">Its deliveries are this key's charges: they count in its usage and against its limit.</p></div>`
    : "";
  return html`<form method="post" action="${view.action}">${csrfField(view.viewer)}${error}
<div class="field"><label for="monitor-query">Query</label>
<input type="text" id="monitor-query" name="query" required autocomplete="off" value="${form.query}"${about("query", "monitor-query-hint")}>
<p class="muted" id="monitor-query-hint">Matched against each post as it arrives: the search query's rules (<a href="/docs#monitors">see the docs</a>).</p></div>
<div class="field"><label for="monitor-name">Name (optional)</label>
<input type="text" id="monitor-name" name="name" maxlength="${MONITOR_LIMITS.nameLength}" autocomplete="off" value="${form.name}"${about("name", "monitor-name-hint")}>
<p class="muted" id="monitor-name-hint">To tell your monitors apart (up to ${MONITOR_LIMITS.nameLength} characters).</p></div>
<fieldset class="field"><legend>Delivery</legend>
<label class="choice"><input type="radio" name="delivery" value="pull"${checked(form.delivery === "pull")}> Pull: you read its matches by poll, stream or MCP</label>
<label class="choice"><input type="radio" name="delivery" value="webhook"${checked(form.delivery === "webhook")}> Webhook: we POST its matches to the URL below</label>
<label for="monitor-url">Webhook URL</label>
<input type="url" id="monitor-url" name="url" autocomplete="off" value="${form.url}"${about("url", "monitor-url-hint")}>
<p class="muted" id="monitor-url-hint">An http(s) address on the public internet; used with webhook delivery only.</p></fieldset>
<div class="field"><label for="monitor-cap">Daily credit cap (optional)</label>
<input type="number" id="monitor-cap" name="cap" min="1" step="1" inputmode="numeric" value="${form.cap}"${about("cap", "monitor-cap-hint")}>
<p class="muted" id="monitor-cap-hint">The most its deliveries may spend per UTC day, at 1 credit per post. Empty: no cap.</p></div>
${keyChoice}<button type="submit">${view.submit}</button></form>`;
}

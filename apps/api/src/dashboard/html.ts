// Server-rendered HTML: a tagged template that escapes every interpolated value unless it is already
// Html, the page layout, and the headers every HTML page is sent with.
import { BALANCE_REFUSAL } from "@social/core";
import { COPY_SCRIPT_PATH } from "./copy.ts";
import { CSRF_FIELD } from "./csrf.ts";

export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === undefined || value === null || value === false) return "";
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  return new Html(
    strings.reduce((out, text, index) => out + text + (index < values.length ? render(values[index]) : ""), ""),
  );
}

/**
 * Nothing loads from elsewhere and no inline script runs: styles and the one script (copy.ts, which
 * only adds copy buttons to a page that works without it) come from us, forms post only to us, and no
 * other site may frame them (clickjacking on the revoke buttons).
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

/** A page, with `extra` headers (several Set-Cookie among them when a Headers holds them). */
export function htmlResponse(body: Html, status = 200, extra: Record<string, string> | Headers = {}): Response {
  const headers = new Headers({
    "content-type": "text/html; charset=utf-8",
    // Pages show balances and keys: never keep them in a shared or back-button cache.
    "cache-control": "no-store",
    ...SECURITY_HEADERS,
  });
  const added = extra instanceof Headers ? extra : new Headers(extra);
  for (const [name, value] of added) if (name !== "set-cookie") headers.set(name, value);
  for (const value of added.getSetCookie()) headers.append("set-cookie", value);
  return new Response(`<!doctype html>\n${body.text}`, { status, headers });
}

export type Section = "dashboard" | "usage" | "requests" | "monitors" | "billing";

/** Why the signed-in customer should look at their credits: they run low, or requests were refused for them. */
export interface BalanceAlert {
  balance: number;
  /** The balance below which they asked to be warned (or the default). */
  threshold: number;
  /** Requests the balance refused (402) since credits were last added, counted up to `refusedCap`. */
  refused: number;
  refusedCap: number;
}

export interface Viewer {
  name: string;
  csrfToken: string;
  /** Shown at the top of every page while it holds. */
  alert?: BalanceAlert;
}

export interface PageOptions {
  title: string;
  section?: Section;
  viewer?: Viewer;
  /** The page's tables take the window's full width (the request log's many columns). */
  wide?: boolean;
  /** The page offers copy buttons (copy.ts). */
  copying?: boolean;
  /** Where the browser goes at once (a meta refresh, which needs no script). */
  refreshTo?: string;
}

const NAVIGATION: readonly { section: Section; href: string; label: string }[] = [
  { section: "dashboard", href: "/dashboard", label: "Dashboard" },
  { section: "usage", href: "/dashboard/usage", label: "Usage" },
  { section: "requests", href: "/dashboard/requests", label: "Requests" },
  { section: "monitors", href: "/dashboard/monitors", label: "Monitors" },
  { section: "billing", href: "/billing", label: "Billing" },
];

/** "1 credit", "1,000 credits". */
export function plural(amount: number, noun: string): string {
  return `${amount.toLocaleString("en-US")} ${noun}${amount === 1 ? "" : "s"}`;
}

/** The banner of a balance below the warning, or nothing: a balance above it needs no attention. */
function balanceBanner(alert: BalanceAlert | undefined): Html | "" {
  if (!alert || alert.balance >= alert.threshold) return "";
  const balance = html`<strong>Low balance:</strong> ${plural(alert.balance, "credit")} left, below your warning at ${plural(alert.threshold, "credit")}.`;
  const many =
    alert.refused >= alert.refusedCap
      ? `${alert.refusedCap.toLocaleString("en-US")} or more requests`
      : plural(alert.refused, "request");
  const refused =
    alert.refused > 0
      ? html` ${many} refused for lack of credits (402) since credits were last added: <a href="/dashboard/requests?status=${BALANCE_REFUSAL.errorCode}">see which</a>.`
      : "";
  return html`<div class="notice warning" role="status" id="balance-alert"><p>${balance}${refused} <a href="/billing">Add credits</a></p></div>`;
}

export function csrfField(viewer: Viewer): Html {
  return html`<input type="hidden" name="${CSRF_FIELD}" value="${viewer.csrfToken}">`;
}

export function layout(options: PageOptions, main: Html): Html {
  const links = NAVIGATION.map(
    (item) =>
      html`<li><a href="${item.href}"${item.section === options.section ? new Html(' aria-current="page"') : ""}>${item.label}</a></li>`,
  );
  const account = options.viewer
    ? html`<form method="post" action="/dashboard/sign-out" class="sign-out">${csrfField(options.viewer)}
        <span>Signed in as ${options.viewer.name}</span> <button type="submit">Sign out</button></form>`
    : "";
  return html`<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · Social Data API</title>${
    options.refreshTo
      ? html`
<meta http-equiv="refresh" content="0; url=${options.refreshTo}">`
      : ""
  }
<link rel="stylesheet" href="/dashboard/style.css">${options.copying ? html`<script src="${COPY_SCRIPT_PATH}" defer></script>` : ""}</head>
<body><a class="skip" href="#main">Skip to content</a>
<header><nav aria-label="Main"><ul><li><a href="/docs">API docs</a></li>${links}</ul></nav>${account}</header>
<main id="main" tabindex="-1"${options.wide ? new Html(' class="wide"') : ""}>${balanceBanner(options.viewer?.alert)}<h1>${options.title}</h1>
${main}</main></body></html>`;
}

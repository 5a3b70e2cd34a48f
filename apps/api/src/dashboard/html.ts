// Server-rendered HTML: a tagged template that escapes every interpolated value unless it is already
// Html, the page layout, and the headers every HTML page is sent with.
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
 * No script runs on these pages and nothing loads from elsewhere: styles come from our own stylesheet,
 * forms post only to us, and no other site may frame them (clickjacking on the revoke buttons).
 */
const CONTENT_SECURITY_POLICY =
  "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy": CONTENT_SECURITY_POLICY,
  "x-content-type-options": "nosniff",
  "x-frame-options": "DENY",
  "referrer-policy": "no-referrer",
};

export function htmlResponse(body: Html, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(`<!doctype html>\n${body.text}`, {
    status,
    headers: {
      "content-type": "text/html; charset=utf-8",
      // Pages show balances and keys: never keep them in a shared or back-button cache.
      "cache-control": "no-store",
      ...SECURITY_HEADERS,
      ...headers,
    },
  });
}

export type Section = "dashboard" | "usage" | "billing";

export interface Viewer {
  name: string;
  csrfToken: string;
}

export interface PageOptions {
  title: string;
  section?: Section;
  viewer?: Viewer;
}

const NAVIGATION: readonly { section: Section; href: string; label: string }[] = [
  { section: "dashboard", href: "/dashboard", label: "Dashboard" },
  { section: "usage", href: "/dashboard/usage", label: "Usage" },
  { section: "billing", href: "/billing", label: "Billing" },
];

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
<title>${options.title} · Social Data API</title>
<link rel="stylesheet" href="/dashboard/style.css"></head>
<body><a class="skip" href="#main">Skip to content</a>
<header><nav aria-label="Main"><ul><li><a href="/docs">API docs</a></li>${links}</ul></nav>${account}</header>
<main id="main" tabindex="-1"><h1>${options.title}</h1>
${main}</main></body></html>`;
}

// The public pages' shell (the landing page, the demo, the docs): one inline stylesheet that follows
// the visitor's light or dark preference, no script, nothing loaded from elsewhere. The policy allows
// that stylesheet by its hash, so nothing else may run even if escaping ever failed.
import { createHash } from "node:crypto";
import { escapeHtml, SECURITY_HEADERS } from "../dashboard/html.ts";

export { escapeHtml };

// Every pair of text and background here passes WCAG AA in both schemes.
const STYLE = `
:root{color-scheme:light dark;--text:#1a1a1a;--page:#fff;--muted:#4d5561;--link:#0645ad;--code:#f3f3f3;--line:#d0d5dc}
@media (prefers-color-scheme:dark){:root{--text:#e8eaed;--page:#14171a;--muted:#b3bac4;--link:#8ab4ff;--code:#20252b;--line:#3a414b}}
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:var(--text);background:var(--page)}
a{color:var(--link)}.muted{color:var(--muted)}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}
pre{background:var(--code);color:var(--text);padding:.75rem;white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;margin:.5rem 0}
th,td{text-align:left;vertical-align:top;padding:.25rem .5rem;border-bottom:1px solid var(--line);overflow-wrap:anywhere}
td.number,th.number{text-align:right;font-variant-numeric:tabular-nums}
section{border-top:1px solid var(--line);padding-top:.5rem}
.method{background:#06733a;color:#fff;padding:0 .4rem;border-radius:3px}
.plans{display:grid;grid-template-columns:repeat(auto-fit,minmax(14rem,1fr));gap:1rem}
.plans section{border:1px solid var(--line);border-radius:6px;padding:0 1rem 1rem}
.price{font-size:1.5rem;font-weight:700;margin:.5rem 0 0}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}
`;

export interface PublicPage {
  title: string;
  /** Trusted HTML: every value in it already escaped. */
  body: string;
}

export function publicPage({ title, body }: PublicPage): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

const STYLE_HASH = createHash("sha256").update(STYLE).digest("base64");

/** The dashboard's security headers, with a policy that allows the one inline stylesheet by its hash. */
export const PUBLIC_PAGE_HEADERS: Readonly<Record<string, string>> = {
  ...SECURITY_HEADERS,
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
};

/** "1,000": how numbers read on these pages. */
export function number(value: number): string {
  return value.toLocaleString("en-US");
}

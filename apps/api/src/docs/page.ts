// The human-readable reference at /docs: server-rendered from the catalogue, no scripts and no
// external assets, so it renders offline and on a phone.
import { createHash } from "node:crypto";
import {
  accountReads,
  CONTROL_PARAMS,
  catalogue,
  type Decision,
  describePrice,
  type Endpoint,
  IDEMPOTENCY_KEY_DESCRIPTION,
  MAX_CREDITS_HEADER,
  type ParamsSchema,
} from "@social/core";
import { exampleParams } from "@social/fixtures";
import * as v from "valibot";
import { SECURITY_HEADERS } from "../dashboard/html.ts";
import { entrySchemas } from "./json-schema.ts";
import { DECISIONS, httpGuidance } from "./openapi.ts";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The decisions' Markdown holds code spans only. */
function inlineMarkdown(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

function decisionsSection(decisions: readonly Decision[]): string {
  const items = decisions
    .map(({ topic, text }) => `<li><strong>${inlineMarkdown(topic)}:</strong> ${inlineMarkdown(text)}</li>`)
    .join("\n");
  return `<section id="decisions" aria-labelledby="decisions-title">
<h2 id="decisions-title">Decisions for the points SPEC.md leaves open</h2>
<ul>${items}</ul>
</section>`;
}

function rule(schema: Record<string, unknown>): string {
  const parts: string[] = [];
  const type = schema.type ?? (Array.isArray(schema.enum) ? "string" : "");
  if (type) parts.push(String(type));
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.join(", ")}`);
  if (schema.minimum !== undefined) parts.push(`${schema.minimum} to ${schema.maximum}`);
  if (typeof schema.pattern === "string") parts.push(`pattern ${schema.pattern}`);
  if (schema.default !== undefined) parts.push(`default ${schema.default}`);
  return parts.join(", ");
}

function exampleUrl(baseUrl: string, endpoint: Endpoint): string {
  const params = exampleParams(endpoint);
  let path = endpoint.path;
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (path.includes(`{${name}}`)) path = path.replace(`{${name}}`, encodeURIComponent(value));
    else query.set(name, value);
  }
  const search = query.toString();
  return `${baseUrl}${path}${search ? `?${search}` : ""}`;
}

/** One GET operation: its title, what it does and costs, its parameters' rules, and a request to paste. */
function operationSection(
  operation: { id: string; path: string; params: ParamsSchema },
  about: string,
  cost: string,
  example: string,
): string {
  const rows = entrySchemas(operation.params)
    .map(
      ([name, schema, required]) =>
        `<tr><th scope="row"><code>${escapeHtml(name)}</code></th><td>${required || operation.path.includes(`{${name}}`) ? "required" : "optional"}</td><td>${escapeHtml(rule(schema as Record<string, unknown>))}</td></tr>`,
    )
    .join("");
  return `<section id="${operation.id}" aria-labelledby="${operation.id}-title">
<h3 id="${operation.id}-title"><span class="method">GET</span> <code>${escapeHtml(operation.path)}</code></h3>
<p>${escapeHtml(about)}</p>
<p><strong>Cost:</strong> ${cost}</p>
<table><caption class="visually-hidden">Parameters of ${escapeHtml(operation.path)}</caption><thead><tr><th scope="col">Parameter</th><th scope="col">Presence</th><th scope="col">Rule</th></tr></thead><tbody>${rows}</tbody></table>
<pre><code>curl -H "Authorization: Bearer $API_KEY" "${escapeHtml(example)}"</code></pre>
</section>`;
}

function section(baseUrl: string, endpoint: Endpoint): string {
  const v2 = endpoint.v2 ? ` Also at <code>${escapeHtml(endpoint.v2.path)}</code> (X API v2 shape).` : "";
  return operationSection(
    endpoint,
    `${endpoint.summary} ${httpGuidance(endpoint)}`,
    `${escapeHtml(describePrice(endpoint))}.${v2}`,
    exampleUrl(baseUrl, endpoint),
  );
}

/** What every charged request may add to its own parameters, and the free account reads. */
function budgetSection(baseUrl: string): string {
  const controls = entrySchemas(v.strictObject(CONTROL_PARAMS))
    .map(
      ([name, schema]) =>
        `<li><code>${escapeHtml(name)}</code>: ${escapeHtml(String((schema as { description?: unknown }).description ?? ""))}</li>`,
    )
    .join("");
  const reads = accountReads
    .map((read) => operationSection(read, read.summary, "none, never charged.", `${baseUrl}${read.path}`))
    .join("\n");
  const example = (path: string, header = "") =>
    `<pre><code>curl -H "Authorization: Bearer $API_KEY"${header} "${escapeHtml(baseUrl + path)}"</code></pre>`;
  return `<h2 id="budget">Budget controls</h2>
<p>Every charged request takes these parameters besides its own, on <code>/v1</code> and <code>/2</code> (and <code>max_credits</code> as the <code>${MAX_CREDITS_HEADER}</code> header, for client code that cannot add parameters; over MCP, as tool arguments):</p>
<ul>${controls}</ul>
${example("/v1/search/recent?query=bitcoin&max_credits=6")}
${example("/v1/users/by-username/jack?dry_run=true")}
<h3 id="key-limits">A key's own limit and expiry</h3>
<p>A key may carry its own limit, in total or per UTC day, and an expiry (set in the dashboard or with <code>bun run admin keys create --limit N --per day --expires 2027-01-31</code>). A request past the limit is 402 with <code>details.reason: "key_limit"</code>, uncharged; an expired key is 401 with a message that says when it expired.</p>
<h3 id="insufficient-credits">A 402 a program can act on</h3>
<p>Every 402 carries <code>details</code>: <code>reason</code> (<code>balance</code> or <code>key_limit</code>), <code>required</code>, <code>remaining</code>, the key's <code>limit</code> for <code>key_limit</code>, and <code>fits</code>, the largest request like it that is covered now, in the caller's own parameters:</p>
<pre><code>{"error": {"code": "insufficient_credits", "details": {"reason": "balance", "required": 21, "remaining": 5, "fits": {"limit": 4}}, …}}</code></pre>
<h3 id="idempotency">Safe retries: Idempotency-Key</h3>
<p>${escapeHtml(IDEMPOTENCY_KEY_DESCRIPTION)} A retry's answer carries <code>Idempotent-Replayed: true</code>. Keys are per account and kept 24 hours; over MCP the argument is <code>idempotency_key</code> and a replayed result says <code>replayed: true</code>.</p>
${example("/v1/users/by-username/jack", ' -H "Idempotency-Key: report-2026-11-24"')}
${reads}`;
}

export function docsPage(baseUrl: string): string {
  const families = [
    ["basic", "Basic reads"],
    ["enriched", "Enriched reads"],
    ["workflow", "Workflows"],
  ] as const;
  const body = families
    .map(
      ([family, title]) =>
        `<h2>${title}</h2>${catalogue
          .filter((e) => e.family === family)
          .map((e) => section(baseUrl, e))
          .join("\n")}`,
    )
    .concat(budgetSection(baseUrl))
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Social Data API reference</title>
<style>
body{font:16px/1.5 system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:1rem;color:#1a1a1a}
code,pre{font-family:ui-monospace,monospace;font-size:.9em}pre{background:#f3f3f3;padding:.75rem;white-space:pre-wrap;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{text-align:left;padding:.25rem .5rem;border-bottom:1px solid #ddd;overflow-wrap:anywhere}
section{border-top:1px solid #ccc;padding-top:.5rem}.method{background:#06733a;color:#fff;padding:0 .4rem;border-radius:3px}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0)}a{color:#0645ad}
</style></head>
<body><header><p><a href="/dashboard">Dashboard</a>: your keys, usage, requests and billing.</p><h1>Social Data API reference</h1>
<p>Read-only JSON over HTTP. Send <code>Authorization: Bearer &lt;API_KEY&gt;</code> on every request. Each response's <code>meta.credits</code> tells the charge and the remaining balance; failures are never charged. Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Try it without a key: <a href="/demo">/demo</a> and <a href="/demo?run=search">/demo?run=search</a>.</p>
<nav aria-label="Endpoints"><ul>${catalogue.map((e) => `<li><a href="#${e.id}"><code>${escapeHtml(e.path)}</code></a></li>`).join("")}<li><a href="#budget">Budget controls</a></li><li><a href="#decisions">Decisions for the points SPEC.md leaves open</a></li></ul></nav></header>
<main>${body}
${decisionsSection(DECISIONS)}</main></body></html>`;
}

/**
 * The dashboard's security headers, with a policy that allows the page's one inline stylesheet by its
 * hash: nothing else may run, load, be framed or post from this page, even if escaping ever failed.
 */
export function docsPageHeaders(page: string): Record<string, string> {
  const style = /<style>([\s\S]*?)<\/style>/.exec(page)?.[1] ?? "";
  const hash = createHash("sha256").update(style).digest("base64");
  return {
    ...SECURITY_HEADERS,
    "content-security-policy": `default-src 'none'; style-src 'sha256-${hash}'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'`,
  };
}

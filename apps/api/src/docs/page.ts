// The human-readable reference at /docs: server-rendered from the catalogue and core's tables, no
// scripts and no external assets, so it renders offline and on a phone. Every endpoint has a request
// to paste in curl, JavaScript and Python, and a sample response read from this server's world.
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
import { examples } from "@social/fixtures";
import * as v from "valibot";
import { escapeHtml, publicPage } from "../site/page.ts";
import { curlCommand, type ExampleRequest, endpointRequest, fetchCode, pythonCode } from "../site/requests.ts";
import { errorsSection, operatorsSection, pagingSection } from "./guides.ts";
import { entrySchemas } from "./json-schema.ts";
import { monitorsSection } from "./monitors-section.ts";
import { DECISIONS, httpGuidance } from "./openapi.ts";

/** The decisions' Markdown holds code spans only. */
function inlineMarkdown(text: string): string {
  return escapeHtml(text).replace(/`([^`]+)`/g, "<code>$1</code>");
}

function decisionsSection(decisions: readonly Decision[]): string {
  const items = decisions
    .map(({ topic, text }) => `<li><strong>${inlineMarkdown(topic)}:</strong> ${inlineMarkdown(text)}</li>`)
    .join("\n");
  return `<section id="decisions" aria-labelledby="decisions-title">
<h2 id="decisions-title">How the API decides the finer points</h2>
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

/** The same request in curl, JavaScript and Python, each marked for the tests that run them. */
export function requestExamples(baseUrl: string, request: ExampleRequest): string {
  return `<p>curl:</p><pre><code class="curl">${escapeHtml(curlCommand(baseUrl, request))}</code></pre>
<p>JavaScript:</p><pre><code class="javascript">${escapeHtml(fetchCode(baseUrl, request))}</code></pre>
<p>Python (requests):</p><pre><code class="python">${escapeHtml(pythonCode(baseUrl, request))}</code></pre>`;
}

function sampleBlock(id: string, sample: unknown): string {
  if (sample === undefined) return "";
  return `<details><summary>Sample response (lists cut to two items)</summary><pre><code class="sample-response" id="sample-${id}">${escapeHtml(JSON.stringify(sample, null, 2))}</code></pre></details>`;
}

/** One GET operation: its title, what it does and costs, its parameters' rules, and requests to paste. */
function operationSection(
  operation: { id: string; path: string; params: ParamsSchema },
  about: string,
  cost: string,
  examplesHtml: string,
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
${examplesHtml}
</section>`;
}

function section(baseUrl: string, endpoint: Endpoint, sample: unknown): string {
  const v2 = endpoint.v2 ? ` Also at <code>${escapeHtml(endpoint.v2.path)}</code> (X API v2 shape).` : "";
  return operationSection(
    endpoint,
    `${endpoint.summary} ${httpGuidance(endpoint)}`,
    `${escapeHtml(describePrice(endpoint))}.${v2}`,
    requestExamples(baseUrl, endpointRequest(endpoint)) + sampleBlock(endpoint.id, sample),
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
    .map((read) =>
      operationSection(
        read,
        read.summary,
        "none, never charged.",
        requestExamples(baseUrl, { path: read.path, query: [] }),
      ),
    )
    .join("\n");
  const search = `/v1/search/recent`;
  const profile = `/v1/users/by-username/${encodeURIComponent(examples.username)}`;
  const curl = (request: ExampleRequest) =>
    `<pre><code class="curl">${escapeHtml(curlCommand(baseUrl, request))}</code></pre>`;
  return `<h2 id="budget">Budget controls</h2>
<p>Every charged request takes these parameters besides its own, on <code>/v1</code> and <code>/2</code> (and <code>max_credits</code> as the <code>${MAX_CREDITS_HEADER}</code> header, for client code that cannot add parameters; over MCP, as tool arguments):</p>
<ul>${controls}</ul>
${curl({
  path: search,
  query: [
    ["query", examples.search_query],
    ["max_credits", "6"],
  ],
})}
${curl({ path: profile, query: [["dry_run", "true"]] })}
<p>A dry run answers <code>data: null</code> and <code>meta.dry_run: true</code> with the quote in <code>meta.credits</code> (<code>max</code>, the most the request can cost, and the <code>rule</code>); in <a href="/openapi.json">/openapi.json</a> it is the response <code>DryRunQuote</code>.</p>
<h3 id="key-limits">A key's own limit and expiry</h3>
<p>A key may carry its own limit, in total or per UTC day, and an expiry, set when the key is created and changed later on the key's page in the <a href="/dashboard">dashboard</a> (its name, limit and expiry). A request past the limit is 402 with <code>details.reason: "key_limit"</code>, uncharged; an expired key is 401 with a message that says when it expired.</p>
<h3 id="insufficient-credits">A 402 a program can act on</h3>
<p>Every 402 carries <code>details</code>: <code>reason</code> (<code>balance</code> or <code>key_limit</code>), <code>required</code>, <code>remaining</code>, the key's <code>limit</code> for <code>key_limit</code>, and <code>fits</code>, the largest request like it that is covered now, in the caller's own parameters:</p>
<pre><code>{"error": {"code": "insufficient_credits", "details": {"reason": "balance", "required": 21, "remaining": 5, "fits": {"limit": 4}}, …}}</code></pre>
<h3 id="idempotency">Safe retries: Idempotency-Key</h3>
<p>${escapeHtml(IDEMPOTENCY_KEY_DESCRIPTION)} A retry's answer carries <code>Idempotent-Replayed: true</code>. Keys are per account and kept 24 hours; over MCP the argument is <code>idempotency_key</code> and a replayed result says <code>replayed: true</code>.</p>
${curl({ path: profile, query: [], headers: { "Idempotency-Key": "report-2026-11-24" } })}
${reads}`;
}

function startSection(baseUrl: string): string {
  return `<section id="start" aria-labelledby="start-title"><h2 id="start-title">Start</h2>
<p>Read-only JSON over HTTP at <code>${escapeHtml(baseUrl)}</code>. Send <code>Authorization: Bearer &lt;API_KEY&gt;</code> on every request; the examples read the key from the <code>API_KEY</code> environment variable. Each answer is <code>{"data": …, "meta": {"request_id", "credits": {"charged", "remaining"}}}</code>: <code>meta.credits.charged</code> is what this request cost and <code>remaining</code> your balance after it. Failures are never charged. Machine-readable: <a href="/openapi.json">/openapi.json</a> (OpenAPI 3.1). Try it without a key: <a href="/demo">/demo</a> and <a href="/demo?run=search">/demo?run=search</a>.</p></section>`;
}

/** The page; `samples` holds each endpoint's sample response by id (see samples.ts). */
export function docsPage(baseUrl: string, samples: ReadonlyMap<string, unknown> = new Map()): string {
  const families = [
    ["basic", "Basic reads"],
    ["enriched", "Enriched reads"],
    ["workflow", "Workflows"],
  ] as const;
  const endpoints = families
    .map(
      ([family, title]) =>
        `<h2>${title}</h2>${catalogue
          .filter((e) => e.family === family)
          .map((e) => section(baseUrl, e, samples.get(e.id)))
          .join("\n")}`,
    )
    .join("\n");
  const guides = [
    ["start", "Start"],
    ["operators", "Search operators"],
    ["paging", "Paging"],
    ["errors", "Errors"],
  ];
  const navigation = [
    ...guides.map(([id, title]) => `<li><a href="#${id}">${title}</a></li>`),
    ...catalogue.map((e) => `<li><a href="#${e.id}"><code>${escapeHtml(e.path)}</code></a></li>`),
    `<li><a href="#monitors">Monitors</a></li><li><a href="#budget">Budget controls</a></li><li><a href="#decisions">How the API decides the finer points</a></li>`,
  ];
  return publicPage({
    title: "Social Data API reference",
    body: `<header><p><a href="/">Social Data API</a> · <a href="/dashboard">Dashboard</a>: your keys, usage, requests and billing.</p><h1>Social Data API reference</h1>
<nav aria-label="Contents"><ul>${navigation.join("")}</ul></nav></header>
<main>${startSection(baseUrl)}
${operatorsSection()}
${pagingSection(baseUrl)}
${errorsSection()}
${endpoints}
${monitorsSection()}
${budgetSection(baseUrl)}
${decisionsSection(DECISIONS)}</main>`,
  });
}

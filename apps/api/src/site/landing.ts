// The front door at /: what the product is (monitors included, with their price), what credits cost (the
// operator's BILLING_PLANS, with the price per 1,000 credits), what each kind of call costs (the
// catalogue's cost rules), and the three steps to a first answer.
import { type BillingSettings, type Plan, pricePerThousand } from "@social/composition";
import { CREDITS_PER_DELIVERED_POST, catalogue, describeEndpointCost, STARTING_CREDITS } from "@social/core";
import { escapeHtml, number, publicPage } from "./page.ts";
import { curlCommand, endpointRequest } from "./requests.ts";

export interface LandingOptions {
  baseUrl: string;
  /** The operator's prices; absent on a server without the dashboard. */
  billing?: BillingSettings;
  /** Whether customers sign in to the dashboard (OpenID Connect is configured). */
  signIn: boolean;
}

function plansSection(plans: readonly Plan[]): string {
  if (plans.length === 0) {
    return `<p>This server's operator grants credits; ask them for prices.</p>`;
  }
  const cards = plans.map((plan) => {
    const perThousand = pricePerThousand(plan);
    return `<section><h3>${escapeHtml(plan.name)}</h3><p class="price">${escapeHtml(plan.price)}</p>
<p>${number(plan.credits)} credits${perThousand ? ` · <span class="per-thousand">${escapeHtml(perThousand)} per 1,000 credits</span>` : ""}</p>${plan.note ? `<p class="muted">${escapeHtml(plan.note)}</p>` : ""}</section>`;
  });
  return `<div class="plans" id="plans">${cards.join("")}</div>`;
}

/** The catalogue's entries grouped by what a call costs, cheapest rule first as the catalogue lists them. */
function costTable(): string {
  const byRule = new Map<string, string[]>();
  for (const endpoint of catalogue) {
    const rule = describeEndpointCost(endpoint);
    byRule.set(rule, [...(byRule.get(rule) ?? []), endpoint.path]);
  }
  const rows = [...byRule].map(
    ([rule, paths]) =>
      `<tr><th scope="row">${escapeHtml(rule)}</th><td>${paths.map((path) => `<code>${escapeHtml(path)}</code>`).join(", ")}</td></tr>`,
  );
  return `<table id="costs"><caption class="visually-hidden">What each call costs</caption><thead><tr><th scope="col">Cost</th><th scope="col">Calls</th></tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function signInStep(signIn: boolean): string {
  return signIn
    ? `<a href="/dashboard/sign-in?return=%2Fdashboard">Sign in to the dashboard</a>. A new account starts with ${number(STARTING_CREDITS)} free credits.`
    : `Sign-in is not set up on this server: its operator issues accounts and keys. Ask them for a key.`;
}

export function landingPage({ baseUrl, billing, signIn }: LandingOptions): string {
  const search = catalogue.find((endpoint) => endpoint.id === "search_recent");
  const curl = search ? curlCommand(baseUrl, endpointRequest(search, { query: '"good morning" lang:en' })) : "";
  return publicPage({
    title: "Social Data API",
    body: `<header><nav aria-label="Main"><a href="/docs">API docs</a> · <a href="/demo">Demo</a> · <a href="/dashboard">Dashboard</a></nav>
<h1>Social Data API</h1>
<p>Read public social data (profiles, tweets, searches, followers, lists, communities) over plain HTTP and JSON, or as tools for AI agents over MCP. Pay per call in credits: every answer says what it cost and what is left, and a call that fails is never charged.</p>
<p id="monitors">Or save a search as a <a href="/docs#monitors">monitor</a>: each new post it matches is sent to your webhook, or read by stream, poll or MCP, for ${CREDITS_PER_DELIVERED_POST} credit${CREDITS_PER_DELIVERED_POST === 1 ? "" : "s"} per delivered post.</p></header>
<main>
<h2>Start in three steps</h2>
<ol id="steps">
<li>${signInStep(signIn)}</li>
<li>Create an API key on the dashboard and keep it in the <code>API_KEY</code> environment variable.</li>
<li>Paste a search:<pre><code class="curl">${escapeHtml(curl)}</code></pre>Or try it without a key first: <a href="/demo?run=search">see a search</a> and <a href="/demo">a profile</a>.</li>
</ol>
<h2>Prices</h2>
${plansSection(billing?.plans ?? [])}
<h2>What each call costs</h2>
<p>Prices are in credits. An item is a tweet, user or id the answer returns; <code>dry_run=true</code> quotes a call for free and <code>max_credits</code> caps it.</p>
${costTable()}
<p>Everything else: <a href="/docs">the API docs</a>, with examples in curl, JavaScript and Python, and <a href="/openapi.json">the OpenAPI description</a>.</p>
</main>`,
  });
}

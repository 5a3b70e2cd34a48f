// The pages a visitor reads before having a key, over the real server: the landing page at / (the
// operator's plans with their price per 1,000 credits, what each call costs, three steps whose curl works
// when pasted) and the demo as a page for browsers, while programs keep its JSON.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { readServerConfig } from "@social/composition";
import { catalogue, describeEndpointCost } from "@social/core";
import { examples } from "@social/fixtures";
import { startTestServer, type TestServer } from "./harness.ts";
import { startTestProvider, type TestProvider } from "./oidc-provider.ts";
import { curlRequest, htmlText } from "./pasted-curl.ts";
import { rawRequest } from "./reliability/raw-http.ts";

// Each price per 1,000 credits worked out by hand: a whole amount, one that needs rounding to the cent,
// thousands separators, a currency written as a word, a fraction of a cent, and a price that is no amount.
const PLANS = [
  { name: "Starter", credits: 10_000, price: "$10" },
  { name: "Odd", credits: 3_000, price: "$10" },
  { name: "Bulk", credits: 2_000_000, price: "$1,000" },
  { name: "Euro", credits: 30_000, price: "EUR 25" },
  { name: "Tiny", credits: 1_000_000, price: "$5" },
  { name: "Custom", credits: 50_000, price: "ask us" },
];
const PER_THOUSAND: Record<string, string | undefined> = {
  Starter: "$1.00",
  Odd: "$3.33",
  Bulk: "$0.50",
  Euro: "EUR 0.83",
  Tiny: "$0.005",
  Custom: undefined,
};
/** What a browser sends when it follows a link. */
const BROWSER_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

let provider: TestProvider;
/** With sign-in (OpenID Connect) and the operator's plans. */
let signedUp: TestServer;
/** Without either: the operator issues keys and grants credits. */
let bare: TestServer;
let key: string;

beforeAll(async () => {
  provider = await startTestProvider("http://127.0.0.1:9/dashboard/callback");
  const billing = readServerConfig({ BILLING_PLANS: JSON.stringify(PLANS) }).billing;
  [signedUp, bare] = await Promise.all([
    startTestServer({
      oidc: { issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
      ...(billing ? { billing } : {}),
    }),
    startTestServer(),
  ]);
  key = (await signedUp.account(10_000)).key;
}, 60_000);
afterAll(async () => {
  await Promise.all([signedUp?.close(), bare?.close()]);
  await provider?.close();
});

/** The inner HTML of every element matched by `pattern`'s first group. */
function all(html: string, pattern: RegExp): string[] {
  return [...html.matchAll(pattern)].map((match) => match[1] ?? "");
}

function only(html: string, pattern: RegExp): string {
  const found = all(html, pattern);
  expect(found.length).toBe(1);
  return found[0] as string;
}

/** The text a reader sees: tags dropped, references decoded. */
function text(html: string): string {
  return htmlText(html.replace(/<[^>]*>/g, ""))
    .replace(/\s+/g, " ")
    .trim();
}

async function page(server: TestServer, path: string, accept?: string) {
  const response = await server.get(path, undefined, accept === undefined ? {} : { headers: { accept } });
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
  return { response, html: await response.text() };
}

/** Sends a page's curl line as the shell would, with the test's key. */
async function paste(command: string) {
  const { url, headers } = curlRequest(command, key);
  const response = await fetch(url, { headers });
  return { status: response.status, body: (await response.json()) as { data: unknown; meta: { credits: Credits } } };
}

interface Credits {
  charged: number;
  remaining: number;
}

describe("the landing page", () => {
  it("answers / itself, not a redirect", async () => {
    const response = await signedUp.get("/", undefined, { redirect: "manual" });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
    expect(text(only(await response.text(), /<h1>([\s\S]*?)<\/h1>/g))).toBe("Social Data API");
  });

  it("shows each of the operator's plans with its price per 1,000 credits", async () => {
    const { html } = await page(signedUp, "/");
    const plans = only(html, /<div class="plans" id="plans">([\s\S]*?)<\/div>/g);
    const shown = all(plans, /<section>([\s\S]*?)<\/section>/g).map((card) => ({
      name: text(only(card, /<h3>([\s\S]*?)<\/h3>/g)),
      price: text(only(card, /<p class="price">([\s\S]*?)<\/p>/g)),
      perThousand: all(card, /<span class="per-thousand">([\s\S]*?) per 1,000 credits<\/span>/g).map(text)[0],
    }));
    expect(shown).toEqual(
      PLANS.map((plan) => ({ name: plan.name, price: plan.price, perThousand: PER_THOUSAND[plan.name] })),
    );
  });

  it("says the operator grants credits when it lists no plans", async () => {
    const { html } = await page(bare, "/");
    expect(html).not.toContain('id="plans"');
    expect(html).toContain("This server's operator grants credits; ask them for prices.");
  });

  it("says what monitors do and what a delivered post costs", async () => {
    const { html } = await page(signedUp, "/");
    expect(text(only(html, /<p id="monitors">([\s\S]*?)<\/p>/g))).toBe(
      "Or save a search as a monitor: each new post it matches is sent to your webhook, or read by stream, poll or MCP, for 1 credit per delivered post.",
    );
  });

  it("states the cost of every call as the catalogue's cost rule prices it", async () => {
    const { html } = await page(signedUp, "/");
    const table = only(html, /<table id="costs">([\s\S]*?)<\/table>/g);
    const stated = new Map<string, string>();
    for (const row of all(table, /<tbody>([\s\S]*?)<\/tbody>/g).flatMap((body) => all(body, /<tr>([\s\S]*?)<\/tr>/g))) {
      const rule = text(only(row, /<th scope="row">([\s\S]*?)<\/th>/g));
      for (const path of all(row, /<code>([\s\S]*?)<\/code>/g)) {
        expect(stated.has(htmlText(path))).toBe(false);
        stated.set(htmlText(path), rule);
      }
    }
    expect(Object.fromEntries(stated)).toEqual(
      Object.fromEntries(catalogue.map((endpoint) => [endpoint.path, describeEndpointCost(endpoint)])),
    );
  });

  it("gives three steps whose curl answers when pasted with a key", async () => {
    const { html } = await page(signedUp, "/");
    const steps = all(only(html, /<ol id="steps">([\s\S]*?)<\/ol>/g), /<li>([\s\S]*?)<\/li>/g);
    expect(steps.length).toBe(3);
    const curl = htmlText(only(steps[2] as string, /<code class="curl">([\s\S]*?)<\/code>/g));
    expect(curl).toContain("--data-urlencode 'query=");
    const { status, body } = await paste(curl);
    expect(status).toBe(200);
    expect(Array.isArray(body.data)).toBe(true);
    expect(body.meta.credits.charged).toBeGreaterThanOrEqual(1);
  });

  it("starts with signing in where OpenID Connect is set up, and the link leads to the provider", async () => {
    const { html } = await page(signedUp, "/");
    const first = all(only(html, /<ol id="steps">([\s\S]*?)<\/ol>/g), /<li>([\s\S]*?)<\/li>/g)[0] as string;
    expect(text(first)).toBe("Sign in to the dashboard. A new account starts with 1,000 free credits.");
    const href = htmlText(only(first, /<a href="([^"]*)">/g));
    const signIn = await signedUp.get(href, undefined, { redirect: "manual" });
    expect(signIn.status).toBe(303);
    expect(signIn.headers.get("location")?.startsWith(`${provider.issuer}/`)).toBe(true);
  });

  it("starts with asking the operator for a key where nobody can sign in", async () => {
    const { html } = await page(bare, "/");
    const first = all(only(html, /<ol id="steps">([\s\S]*?)<\/ol>/g), /<li>([\s\S]*?)<\/li>/g)[0] as string;
    expect(text(first)).toBe(
      "Sign-in is not set up on this server: its operator issues accounts and keys. Ask them for a key.",
    );
    expect(first).not.toContain("/dashboard/sign-in");
  });
});

describe("the demo", () => {
  const RUNS = [
    { path: "/demo", shown: { id: "demo-user", text: `@${examples.username}` } },
    { path: "/demo?run=search", shown: { id: "demo-query", text: examples.search_query } },
  ];

  it.each(RUNS)(
    "$path answers a browser with a page naming the read, what ran and its cost",
    async ({ path, shown }) => {
      const { response, html } = await page(signedUp, path, BROWSER_ACCEPT);
      expect(response.headers.get("vary")?.toLowerCase()).toContain("accept");
      expect(text(only(html, new RegExp(`<code id="${shown.id}">([\\s\\S]*?)</code>`, "g")))).toBe(shown.text);
      const endpoint = text(only(html, /<code id="demo-endpoint">([\s\S]*?)<\/code>/g));
      const curl = htmlText(only(html, /<code class="curl">([\s\S]*?)<\/code>/g));
      const cost = text(only(html, /<p id="demo-cost">([\s\S]*?)<\/p>/g));
      const credits = Number(/would be charged ([\d,]+) credits?/.exec(cost)?.[1]?.replaceAll(",", ""));

      // The same request with a key: the read the page names, charged what the page says.
      const { status, body } = await paste(curl);
      expect(status).toBe(200);
      expect(curlRequest(curl, key).url.pathname).toBe(endpoint);
      expect(body.meta.credits.charged).toBe(credits);
      // The page shows that answer.
      const json = (await (await signedUp.get(path)).json()) as { data: unknown };
      expect(json.data).toEqual(body.data);
      const firstTweet = (
        Array.isArray(json.data) ? json.data : (json.data as { recent_tweets: unknown[] }).recent_tweets
      )[0] as {
        id: string;
      };
      expect(html).toContain(`<code>${firstTweet.id}</code>`);
    },
  );

  it.each([
    ["application/json", "application/json"],
    ["*/*", "*/*"],
    ["no Accept", undefined],
    ["JSON above HTML", "application/json, text/html;q=0.5"],
  ])("gives programs the JSON (%s), varying by Accept", async (_, accept) => {
    for (const path of ["/demo", "/demo?run=search"]) {
      // fetch always sends an Accept of its own, so the request without one goes out raw.
      const { host } = new URL(signedUp.url);
      const response =
        accept === undefined
          ? (await rawRequest(signedUp.url, `GET ${path} HTTP/1.1\r\nHost: ${host}`)).response
          : await signedUp.get(path, undefined, { headers: { accept } });
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("application/json");
      expect(response.headers.get("vary")?.toLowerCase()).toContain("accept");
      const body = (await response.json()) as { data: unknown; meta: { credits: Credits; request_id: string } };
      expect(body.meta.credits).toEqual({ charged: 0, remaining: 0 });
      expect(body.meta.request_id).toBe(response.headers.get("x-request-id") ?? "");
      expect(Object.keys(body)).toEqual(["data", "meta"]);
    }
  });
});

// Property-based fuzzing of every /v1 and /2 endpoint over real HTTP: hostile paths and queries, forged
// and mangled pagination tokens, malformed Authorization headers. Whatever comes in, the answer is never
// a 5xx, always the error envelope with the code its status stands for, answered within a bound, and
// never charged unless it succeeded (the ledger is audited against every answer at the end).
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { join } from "node:path";
import { catalogue, createTokenCodec, type Endpoint, tokenBinding, validateParams } from "@social/core";
import { examples } from "@social/fixtures";
import fc from "fast-check";
import { entrySchemas } from "../../src/docs/json-schema.ts";
import { exampleParams } from "../../src/docs/openapi.ts";
import { v2Query } from "../../src/v2/query.ts";
import { v2Routes } from "../../src/v2/rules.ts";
import { startTestServer, type TestServer } from "../harness.ts";
import { type Answer, readAnswer } from "./answer.ts";
import { FUZZ_RUNS, hostilePath, hostileQuery } from "./hostile.ts";
import { auditLedger, type ObservedCharge } from "./ledger-audit.ts";

/** Generous: a busy shared machine is slow, but a request that hangs is a bug. */
const ANSWER_WITHIN_MS = 15_000;
/**
 * Past about 16 KiB of request line and headers Bun answers 431 itself, before any application code
 * (security.test.ts pins that); the fuzzers stay below it and exercise the app's own 8,192 limit.
 */
const BELOW_RUNTIME_LIMIT = 15_000;

let server: TestServer;
let account: { accountId: string; key: string };
const charges: ObservedCharge[] = [];

beforeAll(async () => {
  server = await startTestServer();
  account = server.account(100_000_000);
});
afterAll(() => server.close());

async function send(path: string, authorization = `Bearer ${account.key}`): Promise<Answer> {
  const response = await server.get(path, undefined, {
    headers: { authorization },
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  });
  const answer = await readAnswer(response);
  charges.push({ requestId: answer.requestId, charged: answer.charged });
  return answer;
}

interface FuzzedRoute {
  template: string;
  /** Query parameter names the route knows, so fuzzed values reach validation and the store. */
  names: string[];
  valid: Record<string, string>;
}

function queryNames(schema: Parameters<typeof entrySchemas>[0], template: string): string[] {
  return entrySchemas(schema)
    .map(([name]) => name)
    .filter((name) => !template.includes(`{${name}}`));
}

const routes: FuzzedRoute[] = [
  ...catalogue.map((endpoint: Endpoint) => ({
    template: endpoint.path,
    names: queryNames(endpoint.params, endpoint.path),
    valid: exampleParams(endpoint),
  })),
  ...v2Routes().map((route) => ({
    template: route.path,
    names: [...new Set([...queryNames(v2Query(route).entries, route.path), "pagination_token", "max_results"])],
    valid: exampleParams(route.endpoint),
  })),
];

function validQuery(route: FuzzedRoute): string {
  return Object.entries(route.valid)
    .filter(([name]) => !route.template.includes(`{${name}}`))
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join("&");
}

describe("hostile paths and queries", () => {
  for (const route of routes) {
    it(`${route.template}: never a 5xx, always the envelope, never charged on failure`, async () => {
      const base = validQuery(route);
      await fc.assert(
        fc.asyncProperty(
          hostilePath(route.template, route.valid),
          hostileQuery(route.names),
          fc.boolean(),
          async (path, query, keepValid) => {
            const search = [keepValid ? base : "", query].filter(Boolean).join("&");
            const url = search ? `${path}?${search}` : path;
            fc.pre(url.length < BELOW_RUNTIME_LIMIT);
            const answer = await send(url);
            expect(answer.problems).toEqual([]);
            expect(answer.status).not.toBe(401);
          },
        ),
        { numRuns: FUZZ_RUNS },
      );
    }, 60_000);
  }
});

/** A real token of a one-item search page, and the cursor inside it. */
async function searchToken(): Promise<{ token: string; cursor: unknown }> {
  const answer = await send(`/v1/search/recent?query=${examples.search_query}&limit=1`);
  const token = answer.nextToken as string;
  const payload = (token.split(".")[0] as string).replaceAll("-", "+").replaceAll("_", "/");
  return { token, cursor: JSON.parse(atob(payload)) };
}

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

function base64url(text: string): string {
  return btoa(text).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

describe("forged and mangled pagination tokens", () => {
  const searchPath = `/v1/search/recent?query=${examples.search_query}&limit=1&next_token=`;
  const v2SearchPath = `/2/tweets/search/recent?query=${examples.search_query}&max_results=1&pagination_token=`;

  it("every change to a real token is 400 invalid_request and uncharged, on /v1 and /2", async () => {
    const { token } = await searchToken();
    const [, mac] = token.split(".") as [string, string];
    const mangled = fc.oneof(
      fc
        .tuple(fc.nat(token.length - 1), fc.constantFrom(...BASE64URL))
        .map(([at, char]) => token.slice(0, at) + char + token.slice(at + 1)),
      fc.nat(token.length - 1).map((at) => token.slice(0, at)),
      fc
        .tuple(fc.nat(token.length), fc.string({ minLength: 1, maxLength: 4 }))
        .map(([at, text]) => token.slice(0, at) + text + token.slice(at)),
      // A cursor of the client's choosing under the real MAC.
      fc
        .array(fc.oneof(fc.string({ maxLength: 20 }), fc.integer()), { minLength: 1, maxLength: 4 })
        .map((parts) => `${base64url(JSON.stringify(parts))}.${mac}`),
      fc.string({ unit: fc.constantFrom(...`${BASE64URL}.=+/ %`), maxLength: 600 }),
    );
    await fc.assert(
      fc.asyncProperty(mangled, fc.boolean(), async (forged, onV2) => {
        fc.pre(forged !== token);
        const answer = await send(`${onV2 ? v2SearchPath : searchPath}${encodeURIComponent(forged)}`);
        expect(answer.problems).toEqual([]);
        expect(answer).toMatchObject({ status: 400, errorCode: "invalid_request", charged: 0 });
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  }, 60_000);

  it("a token signed with another secret, or taken to another endpoint or query, is refused", async () => {
    const { token, cursor } = await searchToken();
    const search = catalogue.find((endpoint) => endpoint.id === "search_recent") as Endpoint;
    const binding = tokenBinding(validateParams(search, { query: examples.search_query, limit: 1 }));
    const otherSecret = await createTokenCodec("an attacker's guess at the secret, 32+ chars long");
    const forged = await otherSecret.sign(search.id, binding, cursor as [string]);
    for (const path of [
      `${searchPath}${forged}`,
      `/v1/search/recent?query=tea&limit=1&next_token=${token}`,
      `/v1/search/recent/enriched?query=${examples.search_query}&limit=1&next_token=${token}`,
      `/v1/users/${examples.user_id}/tweets?next_token=${token}`,
      `/2/users/${examples.user_id}/tweets?pagination_token=${token}`,
    ]) {
      const answer = await send(path);
      expect(answer.problems).toEqual([]);
      expect(answer).toMatchObject({ status: 400, errorCode: "invalid_request", charged: 0 });
    }
    // The untouched token still works: the refusals above are about the changes, not the token.
    expect((await send(`${searchPath}${token}`)).status).toBe(200);
  });
});

describe("malformed Authorization headers", () => {
  /** Header values fetch can send: printable ASCII and tabs, no CR, LF or NUL. */
  const sendable = (text: string) => /^[\t\x20-\x7e]*$/.test(text);

  it("are 401 invalid_api_key on /v1 and /2 and charge no one", async () => {
    const { key } = account;
    const malformed = fc.oneof(
      fc.constantFrom(
        "",
        "Bearer",
        "Bearer ",
        `Bearer${key}`,
        `Basic ${btoa(`${key}:`)}`,
        `Token ${key}`,
        `Bearer ${key}x`,
        `Bearer ${key.slice(0, -1)}`,
        `Bearer ${key} ${key}`,
        `Bearer "${key}"`,
        `Bearer ${key},Bearer ${key}`,
        `Bearer ${"A".repeat(4000)}`,
        "Bearer ' OR 1=1 --",
      ),
      fc.string({ unit: "binary-ascii", maxLength: 80 }).filter(sendable),
      fc
        .tuple(fc.nat(key.length - 1), fc.constantFrom(...BASE64URL.slice(0, 62)))
        .filter(([at, char]) => key[at] !== char)
        .map(([at, char]) => `Bearer ${key.slice(0, at)}${char}${key.slice(at + 1)}`),
    );
    await fc.assert(
      fc.asyncProperty(malformed, fc.boolean(), async (authorization, onV2) => {
        const path = onV2 ? `/2/users/${examples.user_id}` : `/v1/tweets/${examples.tweet_id}`;
        const answer = await send(path, authorization);
        expect(answer.problems).toEqual([]);
        expect(answer).toMatchObject({ status: 401, errorCode: "invalid_api_key", charged: 0 });
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  }, 60_000);
});

describe("after all of it", () => {
  it("the ledger holds exactly the charges of the successful answers", () => {
    expect(charges.length).toBeGreaterThan(routes.length * FUZZ_RUNS);
    expect(auditLedger(join(server.dir, "social.db"), [{ accountId: account.accountId, charges }])).toEqual([]);
  });
});

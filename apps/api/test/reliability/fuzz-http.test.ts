// Property-based fuzzing of every /v1 and /2 endpoint over real HTTP, against the server process as it
// runs in production: hostile paths and queries, forged and mangled pagination tokens, malformed
// Authorization headers and made-up keys up to 20 KB, odd Host headers and CONNECT lines written raw on
// sockets. Whatever comes in, the answer is never a 5xx, always the error envelope with the code its
// status stands for, answered within a bound, and never charged unless it succeeded (the ledger is
// audited against every answer at the end).
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { catalogue, createTokenCodec, type Endpoint, tokenBinding, validateParams } from "@social/core";
import { exampleParams, examples } from "@social/fixtures";
import fc from "fast-check";
import { entrySchemas } from "../../src/docs/json-schema.ts";
import { MAX_HEADER_BYTES } from "../../src/server.ts";
import { V2_ROUTES } from "../../src/v2/mapped.ts";
import { v2Query } from "../../src/v2/query.ts";
import { type Answer, readAnswer } from "./answer.ts";
import { FUZZ_RUNS, hostilePath, hostileQuery } from "./hostile.ts";
import { auditLedger, type ObservedCharge } from "./ledger-audit.ts";
import { type LoadAccount, openAccounts } from "./load.ts";
import { rawRequest } from "./raw-http.ts";
import { type ServerProcess, spawnServer, worldCopy } from "./server-process.ts";

/** Generous: a busy shared machine is slow, but a request that hangs is a bug. */
const ANSWER_WITHIN_MS = 15_000;
/**
 * Past MAX_HEADER_BYTES of request line and headers Bun answers 431 itself, before any application code
 * (security.test.ts pins that); the fuzzers stay below it, with room for the headers, and exercise the
 * app's own 8,192 limit.
 */
const BELOW_RUNTIME_LIMIT = MAX_HEADER_BYTES - 4096;
/** Made-up keys go up to 20 KB: past the 16 KiB where Bun used to answer a bare 431. */
const LONGEST_KEY = 20 * 1024;

const world = worldCopy();
let server: ServerProcess;
let account: LoadAccount;
const charges: ObservedCharge[] = [];

beforeAll(async () => {
  account = openAccounts(world.databasePath, [100_000_000])[0] as LoadAccount;
  server = await spawnServer(world.databasePath);
});
afterAll(async () => {
  await server.stop();
  world.remove();
});

/** The answer, its charge kept for the ledger audit. */
async function observe(response: Response): Promise<Answer> {
  const answer = await readAnswer(response);
  charges.push({ requestId: answer.requestId, charged: answer.charged });
  return answer;
}

function send(path: string, authorization = `Bearer ${account.key}`): Promise<Answer> {
  return fetch(`${server.url}${path}`, {
    headers: { authorization },
    signal: AbortSignal.timeout(ANSWER_WITHIN_MS),
  }).then(observe);
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
  ...V2_ROUTES.map((route) => ({
    template: route.v2.path,
    names: [...new Set([...queryNames(v2Query(route).entries, route.v2.path), "pagination_token", "max_results"])],
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

/** `seed` repeated and cut to exactly `length` characters. */
function fill(seed: string, length: number): string {
  return seed.repeat(Math.ceil(length / seed.length)).slice(0, length);
}

describe("made-up keys of every length", () => {
  const alphanumeric = fc.constantFrom(...BASE64URL.slice(0, 62));
  const anyLength = fc.nat({ max: LONGEST_KEY });
  const madeUp = fc.oneof(
    // The key's prefix and alphabet at every length but the real one.
    fc
      .tuple(anyLength, fc.string({ unit: alphanumeric, minLength: 1, maxLength: 64 }))
      .filter(([length]) => length !== 32)
      .map(([length, seed]) => `sk_live_${fill(seed, length)}`),
    // The real length with a character from outside the alphabet.
    fc
      .tuple(
        fc.string({ unit: alphanumeric, minLength: 32, maxLength: 32 }),
        fc.nat(31),
        fc.constantFrom(..."-_+/=.~!*'\"%:;,"),
      )
      .map(([key, at, char]) => `sk_live_${key.slice(0, at)}${char}${key.slice(at + 1)}`),
    // Well-formed, and never issued.
    fc.string({ unit: alphanumeric, minLength: 32, maxLength: 32 }).map((key) => `sk_live_${key}`),
    // Another prefix, or none: any printable text.
    fc
      .tuple(
        fc.constantFrom("", "sk_test_", "pk_live_", "SK_LIVE_", "sk_live", "sk_live__"),
        anyLength,
        fc.string({ minLength: 1 }),
      )
      .map(([prefix, length, seed]) => prefix + fill(seed, length)),
  );

  it("are 401 invalid_api_key on /v1 and /2 and charge no one", async () => {
    await fc.assert(
      fc.asyncProperty(madeUp, fc.boolean(), async (key, onV2) => {
        const path = onV2 ? `/2/users/${examples.user_id}` : `/v1/tweets/${examples.tweet_id}`;
        const answer = await send(path, `Bearer ${key}`);
        expect(answer.problems).toEqual([]);
        expect(answer).toMatchObject({ status: 401, errorCode: "invalid_api_key", charged: 0 });
      }),
      { numRuns: FUZZ_RUNS * 5 },
    );
  }, 60_000);

  it("at the lengths around every limit, up to 20 KB", async () => {
    for (const length of [0, 1, 31, 33, 40, 512, 4096, 8192, 8193, 16 * 1024, 16 * 1024 + 1, LONGEST_KEY]) {
      for (const key of [`sk_live_${"a".repeat(length)}`, "k".repeat(length)]) {
        const answer = await send(`/v1/tweets/${examples.tweet_id}`, `Bearer ${key}`);
        expect({ length, ...answer }).toMatchObject({ length, status: 401, charged: 0, problems: [] });
      }
    }
  });
});

describe("odd Host headers and request lines, on raw sockets", () => {
  /** Hosts that new URL() refuses, that Bun cannot put in a URL at all, and that are too short. */
  const ODD_HOSTS = ["x", "ab", "x:y", "a b", "[::1", "[::1]", ":80", "", "a/b", "a?b", "a#b", "a@b", "ä", "a\\b"];
  /** What Bun's own parser refuses before the app (and answers bare): control characters but tab. */
  const sendable = (host: string) => !/(?!\t)\p{Cc}/u.test(host);
  const host = fc.oneof(
    fc.constantFrom(...ODD_HOSTS, "x:99999", "1:1", "..", "%41", "a:b:c", "[v1.x]", "\t", "\x7f"),
    fc.string({ maxLength: 30 }),
    fc.string({ unit: "grapheme", maxLength: 8 }).filter(sendable),
  );
  // No key and no demo, docs or dashboard: every answer is then a refusal, never a page or a read.
  const paths = [
    `/v1/tweets/${examples.tweet_id}`,
    `/v1/v1/users/${examples.user_id}`,
    `/xxxxxxxx/v1/users/${examples.user_id}`,
    `/v1/search/recent?query=${examples.search_query}&__proto__=1`,
    `/2/users/${examples.user_id}`,
    "/2/nope",
    "/nope",
    "/mcp",
    "/v1/monitors",
    "/v1/monitors/mon_0123456789abcdef/stream",
  ];
  // HEAD is left out: its answer has no body to read the envelope from.
  const methods = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "CONNECT"];
  const requestLine = fc.oneof(
    fc.tuple(fc.constantFrom(...methods), fc.constantFrom(...paths)).map(([method, path]) => `${method} ${path}`),
    fc.constantFrom("1:1", "example.com:443", "[::1]:80", "h", ":").map((authority) => `CONNECT ${authority}`),
  );
  const authorization = fc.constantFrom("", "\r\nAuthorization: Bearer sk_live_nope");

  it("are a 4xx in the envelope, never charged", async () => {
    await fc.assert(
      fc.asyncProperty(requestLine, host, authorization, async (line, hostHeader, auth) => {
        const raw = await rawRequest(server.url, `${line} HTTP/1.1\r\nHost: ${hostHeader}${auth}`);
        const answer = await observe(raw.response);
        expect(answer.problems).toEqual([]);
        expect(answer.status).toBeGreaterThanOrEqual(400);
        expect(answer.status).toBeLessThan(500);
      }),
      { numRuns: FUZZ_RUNS * 10 },
    );
  }, 60_000);
});

describe("after all of it", () => {
  it("the ledger holds exactly the charges of the successful answers", () => {
    expect(charges.length).toBeGreaterThan(routes.length * FUZZ_RUNS);
    expect(auditLedger(world.databasePath, [{ accountId: account.accountId, charges }])).toEqual([]);
  });
});

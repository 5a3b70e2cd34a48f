// The hardening issue's reproduced attacks, pinned over real HTTP: odd Host headers and CONNECT lines
// (sent raw: fetch refuses them), a short Host that used to shift the routed path, cache headers on the
// demo's refusals, prototype names as query parameters, a missing required parameter, and a request log
// that cannot be written. Every failure is the envelope with its request id, never charged, and
// never Bun's developer page with source and file paths.
import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { examples } from "@social/fixtures";
import { openDatabase, sqliteServices } from "@social/store-sqlite";
import { createApp } from "../../src/app.ts";
import { freePort, startTestServer, type TestServer, worldTemplate } from "../harness.ts";
import { type Answer, readAnswer } from "./answer.ts";
import { auditLedger, type ObservedCharge } from "./ledger-audit.ts";
import { type RawAnswer, rawRequest } from "./raw-http.ts";

/** The repository's root: an answer that names it shows the server's files. */
const ROOT = join(import.meta.dir, "../../../..");

let server: TestServer;
let account: { accountId: string; key: string };
const charges: ObservedCharge[] = [];
beforeAll(async () => {
  server = await startTestServer();
  account = await server.account();
});
afterAll(() => server.close());

/** The answer, its charge kept for the ledger audit. */
async function observed(response: Response): Promise<Answer> {
  const answer = await readAnswer(response);
  charges.push({ requestId: answer.requestId, charged: answer.charged });
  return answer;
}

/** What no answer may show: a page (Bun's developer page has source and stack), or the server's files. */
function leaks(text: string): string[] {
  return [
    ...(text.toLowerCase().includes("<html") ? ["an HTML page"] : []),
    ...(text.includes(ROOT) ? ["the repository's path"] : []),
  ];
}

function checked(raw: RawAnswer): Promise<Answer> {
  expect(leaks(raw.text)).toEqual([]);
  return observed(raw.response);
}

function get(path: string, host: string, headers = ""): Promise<RawAnswer> {
  return rawRequest(server.url, `GET ${path} HTTP/1.1\r\nHost: ${host}${headers}`);
}

describe("odd Host headers and request lines", () => {
  it("a Host that URL refuses but Bun keeps in request.url: the path is answered as usual", async () => {
    for (const host of ["x:y", "[::1", ":80", "a:b:c"]) {
      const nope = await checked(await get("/nope", host));
      expect({ host, ...nope }).toMatchObject({ host, status: 404, errorCode: "endpoint_not_found", problems: [] });
      const v2 = await checked(await get("/2/nope", host));
      expect({ host, ...v2 }).toMatchObject({ host, status: 404, errorCode: "endpoint_not_found", problems: [] });
      const demo = await checked(await get("/demo", host));
      expect({ host, ...demo }).toMatchObject({ host, status: 200, problems: [] });
      const read = await checked(
        await get(`/v1/tweets/${examples.tweet_id}`, host, `\r\nAuthorization: Bearer ${account.key}`),
      );
      expect({ host, ...read }).toMatchObject({ host, status: 200, charged: 1, problems: [] });
    }
  });

  it("the dashboard's pages with a Host that URL refuses: answered as usual, never a 5xx", async () => {
    for (const host of ["x:y", "[::1", ":80", "a:b:c"]) {
      const unknown = await get("/dashboard/nope?x=1", host);
      expect({ host, status: unknown.response.status }).toEqual({ host, status: 404 });
      expect(unknown.text).toContain("/dashboard/nope");
      const requests = await get("/dashboard/requests?status=402", host);
      expect({ host, status: requests.response.status }).toEqual({ host, status: 303 });
    }
  });

  it("a Host that cannot be part of a URL, or none on HTTP/1.0: 400 invalid_request", async () => {
    for (const host of ["a b", "", "a/b", "a@b", "ä"]) {
      for (const path of ["/nope", "/demo", `/v1/tweets/${examples.tweet_id}`, "/2/nope"]) {
        const answer = await checked(await get(path, host, `\r\nAuthorization: Bearer ${account.key}`));
        expect({ host, path, ...answer }).toMatchObject({ host, path, status: 400, errorCode: "invalid_request" });
        expect(answer.problems).toEqual([]);
      }
    }
    const unnamed = await checked(await rawRequest(server.url, "GET /v1/v1/users/1 HTTP/1.0"));
    expect(unnamed).toMatchObject({ status: 400, errorCode: "invalid_request", problems: [] });
  });

  it("a CONNECT line: 400 invalid_request in the envelope", async () => {
    for (const target of ["1:1", "example.com:443", "[::1]:80"]) {
      const answer = await checked(await rawRequest(server.url, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}`));
      expect({ target, ...answer }).toMatchObject({ target, status: 400, errorCode: "invalid_request", problems: [] });
    }
  });

  it("POST /mcp with an odd Host is answered, and shows no internals", async () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const raw = await rawRequest(
      server.url,
      [
        "POST /mcp HTTP/1.1",
        "Host: x:y",
        `Authorization: Bearer ${account.key}`,
        "Content-Type: application/json",
        "Accept: application/json, text/event-stream",
        `Content-Length: ${Buffer.byteLength(body)}`,
      ].join("\r\n"),
      body,
    );
    expect(leaks(raw.text)).toEqual([]);
    expect(raw.response.status).toBe(200);
    expect(raw.text).toContain('"search_recent_tweets"');
    expect(raw.response.headers.get("x-request-id")).toStartWith("req_");
  });
});

describe("a Host header under 4 characters", () => {
  it("routes the real path: /v1/v1/users/{id} is no endpoint, /v1/users/{id} is the user", async () => {
    const auth = `\r\nAuthorization: Bearer ${account.key}`;
    for (const host of ["x", "ab", "abc", "a:1"]) {
      const doubled = await checked(await get(`/v1/v1/users/${examples.user_id}`, host, auth));
      expect({ host, ...doubled }).toMatchObject({ host, status: 404, errorCode: "endpoint_not_found", charged: 0 });
      const shifted = await checked(await get(`/xxxxxxxx/v1/users/${examples.user_id}`, host, auth));
      expect({ host, ...shifted }).toMatchObject({ host, status: 404, errorCode: "endpoint_not_found", charged: 0 });
      const user = await checked(await get(`/v1/users/${examples.user_id}`, host, auth));
      expect({ host, ...user }).toMatchObject({ host, status: 200, problems: [] });
    }
  });
});

describe("the demo's cache headers", () => {
  it("only the shared 200 is cacheable; its 400 is no-store", async () => {
    const shared = await server.get("/demo");
    expect(shared.status).toBe(200);
    expect(shared.headers.get("cache-control")).toBe("public, max-age=60");
    const refused = await server.get("/demo?run=nope");
    expect(await readAnswer(refused.clone())).toMatchObject({ status: 400, problems: [] });
    expect(refused.headers.get("cache-control")).toBe("no-store");
  });

  it("its 429 is no-store", async () => {
    const limited = await startTestServer({ rateLimit: { ratePerSecond: 0.01, burst: 1 } });
    try {
      expect((await limited.get("/demo")).status).toBe(200);
      const refused = await limited.get("/demo");
      expect(await readAnswer(refused.clone())).toMatchObject({ status: 429, errorCode: "rate_limited", problems: [] });
      expect(refused.headers.get("cache-control")).toBe("no-store");
    } finally {
      await limited.close();
    }
  });
});

interface ErrorBody {
  error: { message: string; details?: { parameter?: string; message: string }[] };
}

async function refusal(path: string): Promise<ErrorBody["error"]> {
  const response = await server.get(path, account.key);
  expect(await observed(response.clone())).toMatchObject({ status: 400, errorCode: "invalid_request", problems: [] });
  return ((await response.json()) as ErrorBody).error;
}

describe("query parameter names", () => {
  const names = ["__proto__", "constructor", "toString", "valueOf", "hasOwnProperty", "__defineGetter__"];
  const query = encodeURIComponent(examples.search_query);

  it("the names of Object.prototype are unknown parameters like any other, on /v1 and /2", async () => {
    for (const name of names) {
      for (const path of [
        `/v1/search/recent?query=${query}&${name}=1`,
        `/v1/users/${examples.user_id}?${name}=x`,
        `/2/tweets/search/recent?query=${query}&${name}=1`,
      ]) {
        const error = await refusal(path);
        expect({ path, details: error.details }).toEqual({
          path,
          details: [{ parameter: name, message: "is not a parameter of this endpoint" }],
        });
      }
    }
  });

  it("a missing required parameter is required, not unknown", async () => {
    for (const path of ["/v1/search/recent?limit=5", "/2/tweets/search/recent?max_results=10"]) {
      const error = await refusal(path);
      expect({ path, ...error }).toMatchObject({
        path,
        message: "Invalid request: query is required",
        details: [{ parameter: "query", message: "is required" }],
      });
    }
  });
});

describe("a request log that cannot be written", () => {
  let dir: string;
  let db: Database;
  const consoleError = console.error;
  afterAll(() => {
    console.error = consoleError;
    db?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it("changes no answer, shows no internals, and the server goes on serving", async () => {
    dir = mkdtempSync(join(tmpdir(), "social-api-escape-"));
    copyFileSync(worldTemplate(), join(dir, "social.db"));
    db = openDatabase(join(dir, "social.db"));
    const services = await sqliteServices(db, { rateLimit: { ratePerSecond: 0, burst: 1 } });
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    // The line is written after the answer: its failure must neither reach the client nor stop the server.
    const failingLog = () => {
      throw new Error(`cannot write the request log under ${ROOT}`);
    };
    const app = createApp({ services, publicUrl: url, log: failingLog });
    console.error = () => {};
    app.listen({ hostname: "127.0.0.1", port });
    try {
      for (const attempt of [1, 2]) {
        const raw = await rawRequest(url, `GET /nope HTTP/1.1\r\nHost: 127.0.0.1:${port}`);
        const answer = await readAnswer(raw.response);
        expect(leaks(raw.text)).toEqual([]);
        expect({ attempt, ...answer }).toMatchObject({ attempt, status: 404, errorCode: "endpoint_not_found" });
        expect(answer.problems).toEqual([]);
      }
      const served = await fetch(`${url}/demo`);
      expect(served.status).toBe(200);
    } finally {
      await app.stop();
    }
  });
});

describe("after all of it", () => {
  it("the ledger holds exactly the charges of the successful answers", () => {
    expect(charges.some((charge) => charge.charged > 0)).toBe(true);
    expect(auditLedger(join(server.dir, "social.db"), [{ accountId: account.accountId, charges }])).toEqual([]);
  });
});

// The security review's findings, pinned: keys at rest only as digests, no key or token in any log,
// the URL and body limits, security headers on every HTML page, secrets from configuration or generated
// per database and kept across restarts, and revoked keys refused on every surface.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { examples } from "@social/fixtures";
import { MAX_BODY_BYTES, MAX_URL_LENGTH } from "../../src/http/admission.ts";
import { MAX_HEADER_BYTES, SERVER_HEAP_BUDGET, SERVER_RUNTIME_FLAGS } from "../../src/server.ts";
import { startTestServer, type TestServer } from "../harness.ts";
import { readAnswer } from "./answer.ts";
import { type LoadAccount, openAccounts } from "./load.ts";
import { spawnServer, worldCopy } from "./server-process.ts";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(() => server.close());

const followersPage = `/v1/users/${examples.user_id}/followers?mode=ids&limit=2`;

async function nextToken(baseUrl: string, key: string): Promise<string> {
  const answer = await readAnswer(
    await fetch(`${baseUrl}${followersPage}`, { headers: { authorization: `Bearer ${key}` } }),
  );
  expect(answer.nextToken).toBeString();
  return answer.nextToken as string;
}

function connectMcp(key: string): Promise<Client> {
  const client = new Client({ name: "security", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { authorization: `Bearer ${key}` } },
  });
  return client.connect(transport).then(() => client);
}

describe("API keys at rest", () => {
  it("no table holds a key, only its SHA-256 digest", async () => {
    const { key, keyId } = await server.account();
    const tables = server
      .sqlite()
      .query<{ name: string }, []>(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'",
      )
      .all();
    for (const { name } of tables) {
      const columns = server
        .sqlite()
        .query<{ name: string }, []>(`SELECT name FROM pragma_table_info('${name}')`)
        .all();
      for (const column of columns) {
        const found = server
          .sqlite()
          .query<{ hits: number }, [string]>(
            `SELECT count(*) AS hits FROM "${name}" WHERE instr("${column.name}", ?) > 0`,
          )
          .get(key);
        expect({ table: name, column: column.name, hits: found?.hits }).toEqual({
          table: name,
          column: column.name,
          hits: 0,
        });
      }
    }
    const stored = server
      .sqlite()
      .query<{ hash: string }, [string]>("SELECT hash FROM api_keys WHERE id = ?")
      .get(keyId);
    expect(stored?.hash).toBe(createHash("sha256").update(key).digest("hex"));
  });
});

describe("logs", () => {
  it("hold neither keys nor pagination tokens, whatever the surface or outcome", async () => {
    const { key, keyId } = await server.account();
    const revoked = await server.account();
    await server.revoke(revoked.keyId);
    const token = await nextToken(server.url, key);
    const v2 = await readAnswer(await server.get(`/2/users/${examples.user_id}/followers?max_results=1`, key));
    const secrets = [key, revoked.key, token, v2.nextToken as string];
    await server.get(`${followersPage}&next_token=${token}`, key);
    await server.get(`/2/users/${examples.user_id}/followers?max_results=1&pagination_token=${v2.nextToken}`, key);
    await server.get(`${followersPage}&next_token=${token}x`, key);
    await server.get(`/v1/tweets/${examples.tweet_id}`, revoked.key);
    await server.get(`/v1/tweets/${examples.tweet_id}?key=${key}`, `${key}x`);
    const client = await connectMcp(key);
    await client.callTool({ name: "get_user_followers", arguments: { id: examples.user_id, next_token: token } });
    await client.close();
    await server.revoke(keyId);
    await server.get(`/v1/tweets/${examples.tweet_id}`, key);

    expect(server.logs.length).toBeGreaterThan(8);
    const logs = server.logs.join("\n");
    for (const secret of secrets) expect(logs).not.toContain(secret);
    expect(logs.toLowerCase()).not.toContain("bearer");
  });
});

/** A POST with a chunked body of `size` bytes over a raw socket (fetch would buffer it and send a length). */
function postChunked(path: string, key: string, size: number): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    let answer = "";
    const socket = connect(Number(port), "127.0.0.1", () => {
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`,
      );
      const chunk = "x".repeat(4096);
      for (let sent = 0; sent < size; sent += chunk.length) socket.write(`1000\r\n${chunk}\r\n`);
      socket.end("0\r\n\r\n");
    });
    socket.setTimeout(15_000, () => socket.destroy(new Error("no answer to a chunked POST")));
    socket.on("data", (data) => {
      answer += data;
    });
    socket.on("close", () => resolve(answer));
    socket.on("error", (error) => (answer ? resolve(answer) : reject(error)));
  });
}

describe("request size limits", () => {
  /** /docs ignores its query, so only the length decides the answer. */
  function docsUrlOfLength(length: number): string {
    const base = `${server.url}/docs?pad=`;
    return base + "x".repeat(length - base.length);
  }

  it(`a URL of ${MAX_URL_LENGTH} characters is served; one more is 400 invalid_request`, async () => {
    expect((await fetch(docsUrlOfLength(MAX_URL_LENGTH))).status).toBe(200);
    const answer = await readAnswer(await fetch(docsUrlOfLength(MAX_URL_LENGTH + 1)));
    expect(answer).toMatchObject({ status: 400, errorCode: "invalid_request", problems: [] });
  });

  it(`the server process answers longer URLs itself up to ${MAX_HEADER_BYTES} bytes of headers; Bun's 431 only past that`, async () => {
    const world = worldCopy();
    const started = await spawnServer(world.databasePath);
    try {
      for (const length of [20 * 1024, MAX_HEADER_BYTES - 1024]) {
        const response = await fetch(`${started.url}/docs?pad=${"x".repeat(length)}`);
        const { error } = (await response.clone().json()) as { error: { message: string } };
        expect(await readAnswer(response)).toMatchObject({ status: 400, errorCode: "invalid_request", problems: [] });
        expect(error.message).toBe(`The URL is longer than ${MAX_URL_LENGTH} characters`);
      }
      expect((await fetch(`${started.url}/docs?pad=${"x".repeat(MAX_HEADER_BYTES)}`)).status).toBe(431);
    } finally {
      await started.stop();
      world.remove();
    }
  });

  it("every start of the server raises Bun's header limit: npm start (with every runtime flag and its heap budget) and the API's tests", () => {
    const scripts = (path: string) =>
      (JSON.parse(readFileSync(join(import.meta.dir, path), "utf8")) as { scripts: Record<string, string> }).scripts;
    const start = scripts("../../../../package.json").start;
    expect(start).toContain(` ${SERVER_RUNTIME_FLAGS.join(" ")} apps/api/src/main.ts`);
    for (const [name, value] of Object.entries(SERVER_HEAP_BUDGET))
      expect(start).toStartWith(`${name}=\${${name}:-${value}} `);
    expect(scripts("../../package.json").test).toContain(`bun test --max-http-header-size=${MAX_HEADER_BYTES} `);
  });

  it(`bodies over ${MAX_BODY_BYTES} bytes, or chunked, are 400 on /v1, /2 and /mcp; the limit itself passes`, async () => {
    const { accountId, key } = await server.account();
    const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
    for (const path of [`/v1/tweets/${examples.tweet_id}`, `/2/users/${examples.user_id}`, "/mcp"]) {
      const tooLarge = await fetch(`${server.url}${path}`, {
        method: "POST",
        headers,
        body: "x".repeat(MAX_BODY_BYTES + 1),
      });
      expect(await readAnswer(tooLarge)).toMatchObject({ status: 400, errorCode: "invalid_request", problems: [] });
      const chunked = await postChunked(path, key, 4 * MAX_BODY_BYTES);
      expect(chunked).toStartWith("HTTP/1.1 400 ");
      expect(chunked).toContain('"code":"invalid_request"');
    }
    // At the limit the request reaches its route: a POST to a read is refused as a method, not a size.
    const atLimit = await fetch(`${server.url}/v1/tweets/${examples.tweet_id}`, {
      method: "POST",
      headers,
      body: "x".repeat(MAX_BODY_BYTES),
    });
    expect(await readAnswer(atLimit)).toMatchObject({ status: 404, errorCode: "endpoint_not_found", problems: [] });
    expect(await server.usageTotal(accountId)).toBe(0);
  });
});

describe("HTML pages", () => {
  for (const path of ["/", "/docs", "/demo", "/dashboard", "/billing"]) {
    it(`${path} forbids framing, scripts but the server's own files, sniffing and referrers`, async () => {
      const response = await fetch(`${server.url}${path}`, { headers: { accept: "text/html" } });
      const page = await response.text();
      expect(response.status).toBe(200);
      expect(response.headers.get("content-type")).toStartWith("text/html");
      const policy = response.headers.get("content-security-policy") ?? "";
      expect(policy).toContain("default-src 'none'");
      expect(policy).toContain("frame-ancestors 'none'");
      expect(policy).not.toContain("unsafe");
      // The dashboard's copy buttons are a script file of the server's own; nothing inline, nothing else.
      const scripts = policy.split(";").find((directive) => directive.trim().startsWith("script-src"));
      expect([undefined, "script-src 'self'"]).toContain(scripts?.trim());
      expect(page).not.toMatch(/<script(?![^>]*\ssrc=)/i);
      expect(response.headers.get("x-content-type-options")).toBe("nosniff");
      expect(response.headers.get("x-frame-options")).toBe("DENY");
      expect(response.headers.get("referrer-policy")).toBe("no-referrer");
    });
  }
});

describe("secrets", () => {
  it("are generated per database on first start, kept across restarts, and TOKEN_SECRET overrides them", async () => {
    const world = worldCopy();
    const other = worldCopy();
    try {
      const keyOn = (databasePath: string) => (openAccounts(databasePath, [1000])[0] as LoadAccount).key;
      const key = keyOn(world.databasePath);
      const otherKey = keyOn(other.databasePath);
      const refusedOn = async (baseUrl: string, apiKey: string, token: string) =>
        readAnswer(
          await fetch(`${baseUrl}${followersPage}&next_token=${token}`, {
            headers: { authorization: `Bearer ${apiKey}` },
          }),
        );

      const first = await spawnServer(world.databasePath);
      const token = await nextToken(first.url, key);
      await first.stop();

      const restarted = await spawnServer(world.databasePath);
      expect((await refusedOn(restarted.url, key, token)).status).toBe(200);
      await restarted.stop();

      const configured = await spawnServer(world.databasePath, {
        TOKEN_SECRET: "a configured secret of 32+ characters",
      });
      expect(await refusedOn(configured.url, key, token)).toMatchObject({ status: 400, errorCode: "invalid_request" });
      await configured.stop();

      // Another database has its own secret: nothing is shared through the code.
      const elsewhere = await spawnServer(other.databasePath);
      expect(await refusedOn(elsewhere.url, otherKey, token)).toMatchObject({
        status: 400,
        errorCode: "invalid_request",
      });
      await elsewhere.stop();

      for (const logs of [await first.logs(), await restarted.logs()]) expect(logs).not.toContain(key);
    } finally {
      world.remove();
      other.remove();
    }
  }, 60_000);

  it("both secrets are stored in the database as distinct 256-bit random values", () => {
    const rows = server
      .sqlite()
      .query<{ name: string; value: string }, []>("SELECT name, value FROM settings ORDER BY name")
      .all();
    expect(rows.map((row) => row.name)).toEqual(["pagination_token_secret", "session_secret"]);
    const [pagination, session] = rows.map((row) => row.value) as [string, string];
    expect(pagination).toMatch(/^[0-9a-f]{64}$/);
    expect(session).toMatch(/^[0-9a-f]{64}$/);
    expect(pagination).not.toBe(session);
  });

  it("a TOKEN_SECRET shorter than 32 characters stops the server at start", async () => {
    const world = worldCopy();
    try {
      await expect(spawnServer(world.databasePath, { TOKEN_SECRET: "short" })).rejects.toThrow();
    } finally {
      world.remove();
    }
  }, 60_000);
});

describe("revoked keys", () => {
  it("are refused on /v1, /2 and MCP, mid-session too, and charge nothing", async () => {
    const { accountId, key, keyId } = await server.account();
    const client = await connectMcp(key);
    expect((await client.callTool({ name: "get_tweet", arguments: { id: examples.tweet_id } })).isError).toBeFalsy();
    const balance = await server.balance(accountId);
    await server.revoke(keyId);

    for (const path of [`/v1/tweets/${examples.tweet_id}`, `/2/users/${examples.user_id}`]) {
      const answer = await readAnswer(await server.get(path, key));
      expect(answer).toMatchObject({ status: 401, errorCode: "revoked_api_key", problems: [] });
    }
    // The open session's next call is refused, and so is a new connection.
    await expect(client.callTool({ name: "get_tweet", arguments: { id: examples.tweet_id } })).rejects.toThrow(
      /revoked_api_key/,
    );
    await client.close().catch(() => undefined);
    await expect(connectMcp(key)).rejects.toThrow(/revoked_api_key/);
    expect(await server.balance(accountId)).toBe(balance);
  });
});

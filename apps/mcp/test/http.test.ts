import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ErrorEnvelopeSchema, keyPagePath } from "@social/core";
import * as v from "valibot";
import { toolSuite } from "./conformance.ts";
import {
  HELP_URL,
  httpConnector,
  type McpHttpServer,
  openTestWorld,
  startMcpHttpServer,
  type TestWorld,
} from "./harness.ts";
import { textOf } from "./tool-results.ts";

// Real servers, a real world build and spawned processes: slow on a busy two-core machine, never stuck.
setDefaultTimeout(30_000);

let world: TestWorld;
let server: McpHttpServer;
beforeAll(async () => {
  world = openTestWorld();
  server = await startMcpHttpServer(world);
});
afterAll(async () => {
  await server.stop();
  world.close();
});

toolSuite(
  "Streamable HTTP",
  () => world,
  (options) => httpConnector(world)(options),
);

test("a key's own limit names the key's page, where its owner raises it", async () => {
  const limited = world.account(1000, { limit: { credits: 1, per: "total" } });
  const connection = await httpConnector(world)({ key: limited.key });
  try {
    const args = { query: "coffee", limit: 20 };
    const result = await connection.client.callTool({ name: "search_recent_tweets", arguments: args });
    const page = `${new URL(HELP_URL).origin}${keyPagePath(limited.keyId)}`;
    expect(textOf(result as Parameters<typeof textOf>[0])).toContain(
      `Ask the key's owner to raise its limit on the key's page, ${page}`,
    );
    expect(await world.balance(limited.accountId)).toBe(1000);
  } finally {
    await connection.close();
  }
});

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "1" } },
};

function post(headers: Record<string, string>, url: URL = server.url): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(INITIALIZE),
  });
}

async function expectEnvelope(response: Response, status: number, code: string) {
  expect(response.status).toBe(status);
  const body = v.parse(ErrorEnvelopeSchema, await response.json());
  expect(body.error.code).toBe(code as typeof body.error.code);
  expect(response.headers.get("x-request-id")).toBe(body.error.request_id);
  return body.error;
}

describe("Streamable HTTP: authentication before any MCP processing", () => {
  test("no Authorization header: 401 invalid_api_key in the error envelope", async () => {
    const response = await post({});
    const error = await expectEnvelope(response, 401, "invalid_api_key");
    expect(error.message).toContain("Authorization: Bearer");
    // No key: the scheme alone (RFC 6750), so a client may ask its user for one.
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="mcp"');
  });

  test("an unknown key: 401 invalid_api_key", async () => {
    await expectEnvelope(await post({ authorization: "Bearer sk_live_nope" }), 401, "invalid_api_key");
  });

  test("a revoked key: 401 revoked_api_key, and the SDK client cannot connect", async () => {
    const revoked = world.account();
    world.revoke(revoked.keyId);
    const refused = await post({ authorization: `Bearer ${revoked.key}` });
    const error = await expectEnvelope(refused, 401, "revoked_api_key");
    // invalid_token and why, so that a client says "revoked" rather than starting an OAuth sign-in.
    expect(refused.headers.get("www-authenticate")).toBe(
      `Bearer realm="mcp", error="invalid_token", error_description="${error.message}"`,
    );

    const transport = new StreamableHTTPClientTransport(server.url, {
      requestInit: { headers: { authorization: `Bearer ${revoked.key}` } },
    });
    const client = new Client({ name: "social-mcp-test", version: "1.0.0" });
    await expect(client.connect(transport)).rejects.toThrow("revoked_api_key");
  });

  test("an unknown toolset: 400 invalid_request naming the choices", async () => {
    const url = new URL(server.url);
    url.searchParams.set("toolsets", "dms");
    const error = await expectEnvelope(
      await post({ authorization: `Bearer ${world.account().key}` }, url),
      400,
      "invalid_request",
    );
    expect(error.message).toContain("Unknown toolset dms: choose from search");
  });

  test("an unknown tool, or a query parameter that is not toolsets or tools, or one given twice: 400", async () => {
    const key = { authorization: `Bearer ${world.account().key}` };
    const cases: [string, string][] = [
      ["tools=post_tweet", "Unknown tool post_tweet: choose from search_recent_tweets"],
      ["toolset=search", "toolset is not a parameter of /mcp: choose tools with toolsets or tools"],
      ["toolsets=search&toolsets=users", "toolsets must be given only once"],
    ];
    for (const [query, message] of cases) {
      const error = await expectEnvelope(await post(key, new URL(`${server.url}?${query}`)), 400, "invalid_request");
      expect(error.message).toContain(message);
    }
  });

  test("GET (no server-sent stream in stateless mode): 405", async () => {
    const response = await fetch(server.url, {
      headers: { authorization: `Bearer ${world.account().key}`, accept: "text/event-stream" },
    });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
  });
});

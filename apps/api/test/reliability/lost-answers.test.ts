// Clients that give up 1 to 30 ms after sending, on /v1, /2 and /mcp: each one resets its connection
// unless some of its answer has already reached it, and then reads the answer whole. (The issue's
// clients gave up within 15 ms; up to 30 also reaches past a charge on PostgreSQL, which takes longer.)
// Whatever moment the reset falls on (before the read, during the charge, as the answer is handed to
// Bun), an answer that was never written must not stay charged: every charge the ledger keeps is one
// whose client read the answer, and every other one is refunded (a grant naming the request, shown as
// 499 in the request log).
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { examples } from "@social/fixtures";
import { ADAPTERS, startTestServer, type TestServer } from "../harness.ts";
import { auditDatabase, type ObservedCharge } from "./ledger-audit.ts";
import { type RawAnswer, type ResetOrAnswer, resetUnlessAnswered } from "./raw-http.ts";

const ROUNDS = 60;
/** Clients at once: the server is busy, so a reset can land while another request's charge commits. */
const CONCURRENCY = 4;

const search = encodeURIComponent(examples.search_query);
/** GETs from 1 to 1,001 credits, on both HTTP surfaces. */
const PATHS = [
  `/v1/users/${examples.user_id}`,
  `/v1/search/recent?query=${search}`,
  `/v1/users/${examples.user_id}/followers?mode=ids&limit=5000`,
  `/2/users/${examples.user_id}/followers?max_results=1000`,
  `/2/tweets/search/recent?query=${search}&max_results=20`,
];
const TOOL_CALLS = [
  { name: "get_user", arguments: { id: examples.user_id } },
  { name: "search_recent_tweets", arguments: { query: examples.search_query, limit: 10 } },
];

interface Sent {
  surface: "http" | "mcp";
  outcome: ResetOrAnswer;
}

function send(server: TestServer, key: string, index: number): Promise<Sent> {
  // Every delay from 1 to 30 ms, spread over the surfaces and the requests.
  const afterMs = 1 + ((index * 7) % 30);
  const auth = `Host: 127.0.0.1\r\nAuthorization: Bearer ${key}`;
  if (index % 3 === 2) {
    const call = TOOL_CALLS[index % TOOL_CALLS.length];
    const body = JSON.stringify({ jsonrpc: "2.0", id: index, method: "tools/call", params: call });
    const head = [
      "POST /mcp HTTP/1.1",
      auth,
      "Content-Type: application/json",
      "Accept: application/json, text/event-stream",
      `Content-Length: ${Buffer.byteLength(body)}`,
    ].join("\r\n");
    return resetUnlessAnswered(server.url, head, body, afterMs).then((outcome) => ({ surface: "mcp", outcome }));
  }
  const head = `GET ${PATHS[index % PATHS.length]} HTTP/1.1\r\n${auth}`;
  return resetUnlessAnswered(server.url, head, "", afterMs).then((outcome) => ({ surface: "http", outcome }));
}

/** The charge an answer reports: meta.credits on /v1, x-credits-charged on /2, the tool result's credits on MCP. */
function chargeOf(surface: Sent["surface"], { response, text }: RawAnswer): ObservedCharge {
  const requestId = response.headers.get("x-request-id") ?? "";
  if (response.status !== 200) return { requestId, charged: 0 };
  const header = response.headers.get("x-credits-charged");
  if (header !== null) return { requestId, charged: Number(header) };
  const body = JSON.parse(text) as {
    meta?: { credits?: { charged?: number } };
    result?: { structuredContent?: { credits?: { charged?: number } } };
  };
  const credits = surface === "mcp" ? body.result?.structuredContent?.credits : body.meta?.credits;
  return { requestId, charged: credits?.charged ?? 0 };
}

describe.each(ADAPTERS)("clients that reset 1-30 ms after sending (%s)", (adapter) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ adapter });
  });
  afterAll(() => server.close());

  it("leave no charge for an answer that was never written", async () => {
    const { accountId, key } = await server.account(10_000_000);
    const sent: Sent[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const batch = Array.from({ length: CONCURRENCY }, (_, slot) => send(server, key, round * CONCURRENCY + slot));
      sent.push(...(await Promise.all(batch)));
    }
    const answers = sent.flatMap(({ surface, outcome }) => (outcome.reset ? [] : [chargeOf(surface, outcome.answer)]));
    // The clients' figures for the issue's note; how they split depends on the machine, not on the rule.
    console.error(
      `lost answers (${adapter}): ${sent.length - answers.length} reset before any answer reached them, ${answers.length} read`,
    );
    // A refund can follow its handler (Bun tells of a write it could not finish once it has returned):
    // stopping the server waits for every request and for the ledger's writes in flight.
    await server.stop();
    const audit = await auditDatabase(server.databaseUrl, [{ accountId, charges: answers }], { unansweredAllowed: 0 });
    expect(audit.problems).toEqual([]);
  });
});

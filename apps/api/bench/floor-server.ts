// The floor: the least a charged answer can do on this stack, to read the API's figures against.
// Bun.serve with its own router, the real SqliteStore and SqliteLedger on the same database: a cached
// key digest, the key row, the read, a group-committed debit durable before the answer, a JSON
// envelope. None of the product around it: no Elysia, parameter validation, rate limit, request id
// scheme, rate-limit headers or request log. What the API reaches is read as a share of this.
//
//   bun bench/floor-server.ts <port> <database>
import { createHash } from "node:crypto";
import { parseQuery, requestTarget } from "@social/core";
import { openDatabase, SqliteLedger, SqliteStore } from "@social/store-sqlite";

const [port, database] = process.argv.slice(2);
// Served as the API serves: checkpoints and group-commit fsyncs off the event loop.
const db = openDatabase(database ?? "", { serving: true });
const ledger = new SqliteLedger(db);
const store = new SqliteStore(db);
const digests = new Map<string, string>();
let requests = 0;

async function charged(request: Request, endpoint: string, read: () => Promise<unknown>): Promise<Response> {
  const key = request.headers.get("authorization")?.slice("Bearer ".length) ?? "";
  let digest = digests.get(key);
  if (digest === undefined) {
    digest = createHash("sha256").update(key).digest("hex");
    digests.set(key, digest);
  }
  const check = await ledger.checkKey(digest);
  if (check.status !== "active") return new Response("unauthorized", { status: 401 });
  const data = await read();
  const requestId = `req_${Date.now()}_${requests++}`;
  const debit = await ledger.debit(check.accountId, { requestId, keyId: check.keyId, endpoint, credits: 1 });
  const body = { data, meta: { request_id: requestId, credits: { charged: 1, remaining: debit.remaining } } };
  return new Response(JSON.stringify(body), {
    headers: { "content-type": "application/json; charset=utf-8", "x-request-id": requestId },
  });
}

Bun.serve({
  hostname: "127.0.0.1",
  port: Number(port),
  routes: {
    "/v1/tweets/:id": (request) =>
      charged(request, "/v1/tweets/{id}", async () => (await store.tweetsByIds([request.params.id]))[0]),
    "/v1/search/recent": (request) =>
      charged(request, "/v1/search/recent", async () => {
        const query = requestTarget(request.url).query.get("query") ?? "";
        return (await store.searchTweets(parseQuery(query), "recency", { size: 20 })).items;
      }),
  },
});

// The X API v2 client libraries as the /2 tests use them: unchanged, pointed at a test server, and a
// read measured by what it charged a fresh account.
import http from "node:http";
import { Client } from "@xdevplatform/xdk";
import { TwitterApi } from "twitter-api-v2";
import type { TestServer } from "./harness.ts";

export function twitterClient(server: TestServer, key: string): TwitterApi {
  // A fresh agent per client: twitter-api-v2 would otherwise keep connections across test servers.
  const client = new TwitterApi(key, { httpAgent: new http.Agent() });
  // setPrefix is how twitter-api-v2 retargets v2 calls; its typings mark it protected.
  (client.v2 as unknown as { setPrefix(prefix: string): void }).setPrefix(`${server.url}/2/`);
  return client;
}

export function xdkClient(server: TestServer, key: string): Client {
  return new Client({ bearerToken: key, baseUrl: server.url });
}

/** Runs `read` with the key of a fresh account holding `credits`, and what the account was charged. */
export async function charging<T>(
  server: TestServer,
  read: (key: string) => Promise<T>,
  credits = 1_000_000,
): Promise<{ result: T; charged: number }> {
  const { accountId, key } = await server.account(credits);
  const result = await read(key);
  return { result, charged: credits - (await server.balance(accountId)) };
}

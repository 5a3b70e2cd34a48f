// A bug (an exception that is no API error and no database outage) is 500 internal_error in the
// envelope, logged with its request id and stack on the server, shown without internals, never charged.

import type { Database } from "bun:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tweet } from "@social/core";
import { examples } from "@social/fixtures";
import { createAccount, createKey, openDatabase, SqliteStore, sqliteServices } from "@social/store-sqlite";
import { createApp } from "../src/app.ts";
import { freePort, worldTemplate } from "./harness.ts";

class BuggyStore extends SqliteStore {
  override async tweetsByIds(): Promise<Tweet[]> {
    throw new TypeError("Cannot read properties of undefined (reading 'entities')");
  }
}

let dir: string;
let db: Database;
let url: string;
let stop: () => Promise<void>;
const errors: string[] = [];
const consoleError = console.error;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "social-api-bug-"));
  copyFileSync(worldTemplate(), join(dir, "social.db"));
  db = openDatabase(join(dir, "social.db"));
  const services = await sqliteServices(db, { rateLimit: { ratePerSecond: 0, burst: 1 } });
  const port = await freePort();
  url = `http://127.0.0.1:${port}`;
  const app = createApp({ services: { ...services, store: new BuggyStore(db) }, publicUrl: url, log: () => {} });
  app.listen({ hostname: "127.0.0.1", port });
  stop = async () => {
    await app.stop();
  };
  console.error = (...args: unknown[]) => errors.push(args.join(" "));
});
afterAll(async () => {
  console.error = consoleError;
  await stop();
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a bug in a read", () => {
  it("is 500 internal_error, logged with the request id, and charges nothing", async () => {
    const account = createAccount(db, "bug", 50);
    const { key } = createKey(db, account.id, "bug");
    const response = await fetch(`${url}/v1/tweets/${examples.tweet_id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = (await response.json()) as { error: { code: string; message: string; request_id: string } };
    expect(response.status).toBe(500);
    expect(body.error.code).toBe("internal_error");
    expect(body.error.request_id).toBe(response.headers.get("x-request-id") as string);
    expect(body.error.message).toContain(body.error.request_id);
    expect(body.error.message).not.toContain("entities");
    const logged = errors.map((line) => JSON.parse(line)).find((entry) => entry.id === body.error.request_id);
    expect(logged).toMatchObject({ level: "error", kind: "internal_error" });
    expect(logged.stack).toContain("tweetsByIds");
    expect((db.query("SELECT balance FROM accounts WHERE id = ?").get(account.id) as { balance: number }).balance).toBe(
      50,
    );
  });

  it("on /2 is a 500 problem in X API v2's shape, with the same request id, and charges nothing", async () => {
    const account = createAccount(db, "bug-v2", 50);
    const { key } = createKey(db, account.id, "bug-v2");
    const response = await fetch(`${url}/2/tweets/${examples.tweet_id}`, {
      headers: { authorization: `Bearer ${key}` },
    });
    const body = (await response.json()) as {
      error: { code: string; request_id: string };
      title: string;
      status: number;
      errors: unknown[];
    };
    expect(response.status).toBe(500);
    expect(body).toMatchObject({ title: "Internal Server Error", status: 500, error: { code: "internal_error" } });
    expect(body.errors.length).toBeGreaterThan(0);
    expect(body.error.request_id).toBe(response.headers.get("x-request-id") as string);
    expect((db.query("SELECT balance FROM accounts WHERE id = ?").get(account.id) as { balance: number }).balance).toBe(
      50,
    );
  });
});

// The stdio server's answers against the ledger, with the real binary: a client that writes its calls
// and closes stdin at once still gets every answer (it may read stdout after closing stdin) and is
// charged exactly what they say; a client that closes stdout, or a signal that stops the server while
// calls run, leaves no charge for an answer that was not written.
import { Database } from "bun:sqlite";
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { openBackend } from "@social/composition";
import { TOKEN_SECRET_SETTING } from "@social/core";
import { ledgerPathOf } from "@social/store-sqlite";
import type { Subprocess } from "bun";
import { examples } from "./examples.ts";
import { openTestWorld, STDIO_ENTRY, stdioEnvironment, type TestWorld } from "./harness.ts";

// Several servers spawned at once on a busy two-core machine: slow, never stuck (exited() kills).
setDefaultTimeout(120_000);

const CREDITS = 1000;
const INITIALIZE = [
  {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "stdio-answers", version: "1" } },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
];
/** A call of 1 credit and one of 6 (five tweets and the base). */
const CALLS = [
  {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "get_user_by_username", arguments: { username: examples.username } },
  },
  {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "search_recent_tweets", arguments: { query: examples.search_query, limit: 5 } },
  },
];

let world: TestWorld;
beforeAll(async () => {
  world = openTestWorld();
  // The file's first start made once here: servers making it at the same moment race to create its tables.
  const backend = await openBackend(world.databaseUrl);
  await backend.secret(TOKEN_SECRET_SETTING);
  await backend.close();
});
afterAll(() => world.close());

function lines(messages: readonly object[]): string {
  return messages.map((message) => `${JSON.stringify(message)}\n`).join("");
}

interface Written {
  id: number;
  charged: number;
}

/** The answers on stdout, by id, with the credits each tool result says it charged. */
function answersIn(stdout: string): Written[] {
  return stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      const message = JSON.parse(line) as {
        id: number;
        result?: { structuredContent?: { credits?: { charged?: number } } };
      };
      return { id: message.id, charged: message.result?.structuredContent?.credits?.charged ?? 0 };
    })
    .sort((a, b) => a.id - b.id);
}

function creditsIn(answers: readonly Written[]): number {
  return answers.reduce((sum, answer) => sum + answer.charged, 0);
}

function spawnServer(key: string) {
  return Bun.spawn([process.execPath, STDIO_ENTRY], {
    env: stdioEnvironment(world, { key, toolsets: "search,users" }),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
}

/** The exit code, or "stuck" for a server still running after 20 s (then killed). */
async function exited(child: Subprocess): Promise<number | "stuck"> {
  const timeout = Bun.sleep(20_000).then(() => "stuck" as const);
  const exit = await Promise.race([child.exited, timeout]);
  if (exit === "stuck") child.kill("SIGKILL");
  return exit;
}

/** A stream's text so far, read as far as asked: until some text has appeared, or to its end. */
function reading(stream: ReadableStream<Uint8Array>) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let seen = "";
  const until = async (text: string | undefined) => {
    while (text === undefined || !seen.includes(text)) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += decoder.decode(value, { stream: true });
    }
    return seen;
  };
  return { until: (text: string) => until(text), all: () => until(undefined), cancel: () => reader.cancel() };
}

/** What the account was charged, less refunds: the usage rows whose charge no grant gave back. */
function keptCharges(accountId: string): number {
  const db = new Database(ledgerPathOf(world.databaseUrl), { readonly: true, strict: true });
  try {
    const kept = db
      .query<{ credits: number }, [string]>(
        `SELECT COALESCE(SUM(credits), 0) AS credits FROM usage
         WHERE account_id = ? AND request_id NOT IN (SELECT refund_of FROM grants WHERE refund_of IS NOT NULL)`,
      )
      .get(accountId);
    return kept?.credits ?? 0;
  } finally {
    db.close();
  }
}

test("stdin closed right after the calls: every call is answered and charged what its answer says", async () => {
  // The end of input used to close the database under the running calls: charged, never answered.
  const runs = await Promise.all(
    Array.from({ length: 10 }, async () => {
      const account = world.account(CREDITS);
      const child = spawnServer(account.key);
      child.stdin.write(lines([...INITIALIZE, ...CALLS]));
      child.stdin.end();
      const answers = answersIn(await new Response(child.stdout).text());
      const exit = await exited(child);
      return {
        exit,
        answered: answers.map((answer) => answer.id),
        reported: creditsIn(answers),
        kept: keptCharges(account.accountId),
        balance: await world.balance(account.accountId),
      };
    }),
  );
  const expected = { exit: 0, answered: [0, 1, 2], reported: 7, kept: 7, balance: CREDITS - 7 };
  expect(runs).toEqual(runs.map(() => expected));
});

test("stdout closed by the client: the calls that follow are refunded, and the server ends", async () => {
  const account = world.account(CREDITS);
  const child = spawnServer(account.key);
  child.stdin.write(lines(INITIALIZE));
  child.stdin.flush();
  // The initialize answer is read, then the client stops reading: no later answer can be written.
  const stdout = reading(child.stdout);
  expect(answersIn(await stdout.until("\n")).map((answer) => answer.id)).toEqual([0]);
  await stdout.cancel();
  child.stdin.write(lines(CALLS));
  child.stdin.flush();
  // stdin stays open: the server ends because nothing it answers can be written any more.
  expect(await exited(child)).toBe(0);
  expect(keptCharges(account.accountId)).toBe(0);
  expect(await world.balance(account.accountId)).toBe(CREDITS);
});

test("a signal while calls run: nothing stays charged for an answer that was not written", async () => {
  const runs = await Promise.all(
    Array.from({ length: 6 }, async () => {
      const account = world.account(CREDITS);
      const child = spawnServer(account.key);
      await reading(child.stderr).until("tools on stdio");
      child.stdin.write(lines([...INITIALIZE, ...CALLS]));
      child.stdin.flush();
      // The initialize answer shows the calls were read with it: they are running when the signal comes.
      const stdout = reading(child.stdout);
      await stdout.until("\n");
      child.kill("SIGTERM");
      const answers = answersIn(await stdout.all());
      const exit = await exited(child);
      return { exit, reported: creditsIn(answers), kept: keptCharges(account.accountId) };
    }),
  );
  expect(runs).toEqual(runs.map((run) => ({ exit: 0, reported: run.reported, kept: run.reported })));
});

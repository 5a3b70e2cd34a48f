// Monitors matched by the importer as an operator runs it: `import FILE` and `import --follow FILE` as
// real processes on a SQLite file and on a real PostgreSQL database, with monitors created through the
// Backend the servers use, and each monitor's recorded matches checked exactly. Nothing here waits a
// fixed time: each step polls for its condition with a generous deadline.
import { describe, expect, test } from "bun:test";
import { appendFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Backend } from "@social/composition";
import { newMonitorId, newMonitorSecret } from "@social/core";
import { REPO_ROOT } from "@social/testing";
import { testDatabases } from "./databases.ts";
import { follow, growingFile, killFollowers, positionAtEnd, until, withBackend } from "./following.ts";

const databases = testDatabases("monitors");

const AUTHORS = {
  roaster: { id: "4242", username: "roaster", name: "Roaster" },
  drinker: { id: "4343", username: "drinker", name: "Drinker" },
};

function tweetId(n: number): string {
  return String(1_900_000_000_000_000_000n + BigInt(n));
}

/** Post `n` as twarc2's flatten writes it, its author embedded, as one line; `likes` makes a newer copy. */
function postLine(n: number, text: string, author: keyof typeof AUTHORS = "roaster", likes = 0): string {
  return `${JSON.stringify({
    id: tweetId(n),
    text,
    author_id: AUTHORS[author].id,
    created_at: new Date(Date.UTC(2026, 0, 1, 12, 0, n)).toISOString(),
    public_metrics: { like_count: likes },
    author: AUTHORS[author],
  })}\n`;
}

function admin(databaseUrl: string, ...args: string[]) {
  const run = Bun.spawnSync([process.execPath, "apps/admin/src/main.ts", ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
  });
  if (run.exitCode !== 0) throw new Error(`admin ${args.join(" ")} failed: ${run.stderr.toString()}`);
  return run;
}

/** Creates a pull monitor for each query, of an account of their own; returns it with their ids by query. */
async function createMonitors(
  backend: Backend,
  queries: readonly string[],
): Promise<{ accountId: string; ids: Record<string, string> }> {
  const { account, key } = await backend.accounts.openAccount("Ada");
  const ids: Record<string, string> = {};
  for (const query of queries) {
    const id = newMonitorId();
    const now = Date.now();
    const delivery = { type: "pull" } as const;
    const monitor = { id, accountId: account.id, keyId: key.keyId, query, delivery, secret: newMonitorSecret(), now };
    const creation = await backend.monitors.create(monitor, 100);
    if (!creation.ok) throw new Error(`monitor ${query} refused`);
    ids[query] = id;
  }
  return { accountId: account.id, ids };
}

/** The monitor's matches as [seq, post number] pairs. */
async function matched(backend: Backend, monitorId: string): Promise<[number, number][]> {
  const matches = await backend.monitors.matches(monitorId, 0, 1_000);
  return matches.map(({ seq, tweetId: id }) => [seq, Number(BigInt(id) - 1_900_000_000_000_000_000n)]);
}

describe.each(["sqlite", "postgres"] as const)("monitors matched by the importer on %s", (adapter) => {
  test("an import records each new post's matches once; replaced copies are not matched again", async () => {
    const url = await databases.create(adapter);
    const monitors = await withBackend(url, async (backend) => {
      const { accountId, ids } = await createMonitors(backend, ["#coffee", "from:roaster tea", "coffee", "from:4343"]);
      await backend.monitors.update(accountId, ids.coffee ?? "", { status: "paused" }, Date.now());
      return ids;
    });
    const first = join(databases.dir, `${adapter}-first.jsonl`);
    writeFileSync(
      first,
      postLine(1, "#coffee first") +
        postLine(2, "tea time") +
        postLine(3, "nothing to see") +
        postLine(4, "tea for me", "drinker") +
        postLine(5, "#coffee and tea"),
    );
    admin(url, "import", first);
    const second = join(databases.dir, `${adapter}-second.jsonl`);
    // Newer copies of 1 and 2, and a new post.
    writeFileSync(second, postLine(1, "#coffee first", "roaster", 7) + postLine(2, "tea time", "roaster", 3));
    appendFileSync(second, postLine(6, "#coffee again", "drinker"));
    const run = admin(url, "import", second);
    expect(run.stdout.toString()).toContain("world: 2 users, 6 tweets");
    await withBackend(url, async (backend) => {
      expect(await matched(backend, monitors["#coffee"] ?? "")).toEqual([
        [1, 1],
        [2, 5],
        [3, 6],
      ]);
      expect(await matched(backend, monitors["from:roaster tea"] ?? "")).toEqual([
        [1, 2],
        [2, 5],
      ]);
      expect(await matched(backend, monitors.coffee ?? "")).toEqual([]);
      // A user's numeric id in from: matches their posts, as in search.
      expect(await matched(backend, monitors["from:4343"] ?? "")).toEqual([
        [1, 4],
        [2, 6],
      ]);
      expect(await backend.monitors.arrivals(10)).toEqual([]);
    });
  }, 60_000);

  test("a monitor created or paused while a file is followed matches from then on", async () => {
    const url = await databases.create(adapter);
    const path = join(databases.dir, `${adapter}-live.jsonl`);
    writeFileSync(path, "");
    await withBackend(url, async (backend) => {
      const { accountId, ids } = await createMonitors(backend, ["#coffee"]);
      const coffee = ids["#coffee"] ?? "";
      const follower = follow(url, path);
      const recorded = (monitorId: string, expected: [number, number][]) =>
        until(`matches ${JSON.stringify(expected)}`, async () =>
          JSON.stringify(await matched(backend, monitorId)) === JSON.stringify(expected) ? true : undefined,
        );
      appendFileSync(path, postLine(1, "#coffee with tea"));
      await recorded(coffee, [[1, 1]]);
      const tea = (await createMonitors(backend, ["tea"])).ids.tea ?? "";
      appendFileSync(path, postLine(2, "tea, then #coffee"));
      await recorded(tea, [[1, 2]]);
      await recorded(coffee, [
        [1, 1],
        [2, 2],
      ]);
      await backend.monitors.update(accountId, coffee, { status: "paused" }, Date.now());
      appendFileSync(path, postLine(3, "#coffee and tea"));
      await recorded(tea, [
        [1, 2],
        [2, 3],
      ]);
      follower.process.kill("SIGTERM");
      await follower.ended();
      expect(await matched(backend, coffee)).toEqual([
        [1, 1],
        [2, 2],
      ]);
    });
  }, 60_000);

  test("a followed file killed at several points and restarted records every match once, in order", async () => {
    const url = await databases.create(adapter);
    const { ids } = await withBackend(url, (backend) => createMonitors(backend, ["#coffee"]));
    const monitor = ids["#coffee"] ?? "";
    const path = join(databases.dir, `${adapter}-kills.jsonl`);
    writeFileSync(path, "");
    const file = growingFile(path, (n) => postLine(n, n % 2 === 0 ? `#coffee ${n}` : `tea ${n}`));
    await withBackend(url, async (backend) => {
      await killFollowers(backend, url, path, 3);
      const written = await file.stop();
      const last = follow(url, path);
      await positionAtEnd(backend, path);
      const even = Array.from({ length: Math.floor(written / 2) }, (_, i) => 2 * (i + 1));
      const expected = even.map((n, i): [number, number] => [i + 1, n]);
      await until("every match to be recorded", async () =>
        (await matched(backend, monitor)).length === expected.length ? true : undefined,
      );
      last.process.kill("SIGTERM");
      expect((await last.ended()).code).toBe(0);
      expect(await matched(backend, monitor)).toEqual(expected);
      expect(await backend.monitors.arrivals(10)).toEqual([]);
    });
  }, 120_000);
});

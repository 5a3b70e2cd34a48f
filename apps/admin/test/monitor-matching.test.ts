// Monitors matched by the importer as an operator runs it: `import FILE` and `import --follow FILE` as
// real processes on a SQLite file and on a real PostgreSQL database, with monitors created through the
// Backend the servers use, and each monitor's recorded matches checked exactly. Nothing here waits a
// fixed time: each step polls for its condition with a generous deadline.
import { describe, expect, test } from "bun:test";
import { appendFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type Backend, openBackend } from "@social/composition";
import { newMonitorId, newMonitorSecret } from "@social/core";
import { REPO_ROOT } from "@social/testing";
import { testDatabases } from "./databases.ts";

const databases = testDatabases("monitors");
const DEADLINE_MS = 30_000;

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

function follow(databaseUrl: string, path: string) {
  const child = Bun.spawn([process.execPath, "apps/admin/src/main.ts", "import", "--follow", path], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { process: child, ended: () => output };
}

async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(25);
  }
}

async function withBackend<T>(databaseUrl: string, work: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await openBackend(databaseUrl, { max: 2 });
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
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
      const { accountId, ids } = await createMonitors(backend, ["#coffee", "from:roaster tea", "coffee"]);
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
    let written = 0;
    let writing = true;
    const writer = (async () => {
      while (writing) {
        written++;
        appendFileSync(path, postLine(written, written % 2 === 0 ? `#coffee ${written}` : `tea ${written}`));
        await Bun.sleep(20);
      }
    })();
    await withBackend(url, async (backend) => {
      const committed = async () => (await backend.worldImport().followPosition(path))?.line ?? 0;
      for (let kill = 1; kill <= 3; kill++) {
        const follower = follow(url, path);
        const before = await committed();
        // Killed once more lines have been committed, at whatever point of its work it then is.
        await until("more lines to be committed", async () => ((await committed()) > before ? true : undefined));
        follower.process.kill("SIGKILL");
        await follower.ended();
      }
      writing = false;
      await writer;
      const last = follow(url, path);
      await until("the position to reach the file's end", async () => {
        const position = await backend.worldImport().followPosition(path);
        return position?.offset === statSync(path).size ? position : undefined;
      });
      const even = Array.from({ length: Math.floor(written / 2) }, (_, i) => 2 * (i + 1));
      const expected = even.map((n, i): [number, number] => [i + 1, n]);
      await until("every match to be recorded", async () =>
        (await matched(backend, monitor)).length === expected.length ? true : undefined,
      );
      last.process.kill("SIGTERM");
      const [, , code] = await last.ended();
      expect(code).toBe(0);
      expect(await matched(backend, monitor)).toEqual(expected);
      expect(await backend.monitors.arrivals(10)).toEqual([]);
    });
  }, 120_000);
});

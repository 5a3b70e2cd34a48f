// `import --follow` as an operator runs it: a real process following a file that the test appends to
// line by line, on a SQLite file and on a real PostgreSQL database, checked through the store the
// servers read. Nothing here waits a fixed time: each step polls for its condition with a generous
// deadline. Each test opens its database (which migrates it) before a follower starts.
import { describe, expect, test } from "bun:test";
import { appendFileSync, renameSync, statSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Backend } from "@social/composition";
import { parseQuery } from "@social/core";
import { REPO_ROOT } from "@social/testing";
import { testDatabases } from "./databases.ts";
import {
  committedLine,
  type Follower,
  follow,
  growingFile,
  killFollowers,
  positionAtEnd,
  until,
  withBackend,
} from "./following.ts";

const databases = testDatabases("follow");

/** Tweet `n` as twarc2's flatten writes it, its author embedded, as one line. */
function tweetLine(n: number, tag = "follow"): string {
  const id = String(1_900_000_000_000_000_000n + BigInt(n));
  return `${JSON.stringify({
    id,
    text: `live post ${n} #${tag}`,
    author_id: "4242",
    created_at: new Date(Date.UTC(2026, 0, 1, 12, 0, n)).toISOString(),
    author: { id: "4242", username: "live_writer", name: "Live writer" },
  })}\n`;
}

function tweetId(n: number): string {
  return String(1_900_000_000_000_000_000n + BigInt(n));
}

async function searchIds(backend: Backend, tag = "follow"): Promise<string[]> {
  const page = await backend.store.searchTweets(parseQuery(`#${tag}`), "recency", { size: 100 });
  return page.items.map((tweet) => tweet.id).sort();
}

/** Waits until a search for `#tag` finds exactly tweets `numbers`. */
function searchable(backend: Backend, numbers: readonly number[], tag = "follow") {
  const expected = numbers.map(tweetId).sort();
  return until(`tweets ${numbers.join(", ")} to be searchable`, async () => {
    const ids = await searchIds(backend, tag);
    return ids.length === expected.length && ids.every((id, index) => id === expected[index]) ? ids : undefined;
  });
}

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, index) => from + index);
}

/** The stopped follower's report row for `kind`: added, updated, kept. */
function outcomes(stdout: string, kind: "users" | "tweets"): number[] {
  const row = stdout.split("\n").find((line) => line.startsWith(`${kind} `));
  return (row ?? "").trim().split(/\s+/).slice(1).map(Number);
}

describe.each(["sqlite", "postgres"] as const)("import --follow on %s", (adapter) => {
  test("each appended line becomes searchable while the file is followed; SIGTERM reports and exits 0", async () => {
    const url = await databases.create(adapter);
    const path = join(databases.dir, `${adapter}-live.jsonl`);
    writeFileSync(path, "");
    let follower: Follower | undefined;
    await withBackend(url, async (backend) => {
      follower = follow(url, path);
      for (const n of range(1, 4)) {
        appendFileSync(path, tweetLine(n));
        await searchable(backend, range(1, n));
      }
      // A partial last line waits for its newline: the line before it is committed, it is not.
      const partial = tweetLine(5);
      appendFileSync(path, tweetLine(6, "other") + partial.slice(0, 40));
      await searchable(backend, [6], "other");
      const position = await backend.worldImport().followPosition(path);
      expect(position).toMatchObject({ line: 5, offset: statSync(path).size - 40 });
      expect(await searchIds(backend)).toEqual(range(1, 4).map(tweetId));
      appendFileSync(path, partial.slice(40));
      await searchable(backend, range(1, 5));
      // Settling is spaced out while lines land, and caught up once they stop: the clock, the newest post.
      const newest = Date.UTC(2026, 0, 1, 12, 0, 6);
      await until("the clock to be the newest post", async () =>
        (await backend.store.clockMs()) === newest ? true : undefined,
      );
    });
    follower?.process.kill("SIGTERM");
    const run = await (follower as Follower).ended();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("never followed before");
    expect(outcomes(run.stdout, "tweets")).toEqual([6, 0, 0]);
    expect(run.stdout).toContain("world: 1 users, 6 tweets");
  });

  test("killed at several points while lines keep coming, it resumes exactly after the last committed line", async () => {
    const url = await databases.create(adapter);
    const path = join(databases.dir, `${adapter}-kills.jsonl`);
    writeFileSync(path, "");
    const file = growingFile(path, (n) => tweetLine(n));
    await withBackend(url, async (backend) => {
      await killFollowers(backend, url, path, 3);
      const written = await file.stop();
      const landed = await committedLine(backend, path);
      const last = follow(url, path);
      await positionAtEnd(backend, path);
      last.process.kill("SIGTERM");
      const run = await last.ended();
      expect(run.code).toBe(0);
      expect(run.stdout).toContain(`resumed after line ${landed} (byte `);
      // Nothing imported twice or skipped: the last run adds exactly the lines after the position.
      expect(outcomes(run.stdout, "tweets")).toEqual([written - landed, 0, 0]);
      expect(run.stdout).toContain(`world: 1 users, ${written} tweets`);
      expect(await backend.worldImport().followPosition(path)).toMatchObject({ line: written });
      const ids = range(1, written).map(tweetId);
      let found = 0;
      for (let start = 0; start < ids.length; start += 100)
        found += (await backend.store.tweetsByIds(ids.slice(start, start + 100))).length;
      expect(found).toBe(written);
    });
  }, 120_000);

  test("a file replaced at its path or truncated is read from its beginning", async () => {
    const url = await databases.create(adapter);
    const path = join(databases.dir, `${adapter}-rotated.jsonl`);
    writeFileSync(path, tweetLine(1) + tweetLine(2));
    let follower: Follower | undefined;
    await withBackend(url, async (backend) => {
      follower = follow(url, path);
      await searchable(backend, [1, 2]);
      // Rotation: the old file moved away, a new one at the path.
      renameSync(path, `${path}.1`);
      writeFileSync(path, tweetLine(3));
      await searchable(backend, [1, 2, 3]);
      await until("the position to name the new file's line 1", async () => {
        const position = await backend.worldImport().followPosition(path);
        return position?.inode === String(statSync(path, { bigint: true }).ino) && position.line === 1
          ? position
          : undefined;
      });
      // Truncated while followed: the same file cut, then written again.
      truncateSync(path, 0);
      appendFileSync(path, tweetLine(4, "cut"));
      await searchable(backend, [4], "cut");
      follower.process.kill("SIGTERM");
      const running = await follower.ended();
      expect(running.stderr).toContain("was replaced");
      expect(running.stderr).toContain("was truncated");
      // Truncated while stopped, below the position (a line shorter than the one committed): the next
      // run starts over and says so.
      writeFileSync(path, tweetLine(5, "re"));
      follower = follow(url, path);
      await searchable(backend, [5], "re");
    });
    follower?.process.kill("SIGTERM");
    const restarted = await (follower as Follower).ended();
    expect(restarted.code).toBe(0);
    expect(restarted.stdout).toContain("truncated below the position of line 1");
  }, 60_000);
});

describe("import --follow refusals", () => {
  test("--strict and more than one file are usage errors; a tweet whose author has not come is refused", async () => {
    const url = await databases.create("sqlite");
    const path = join(databases.dir, "refusals.jsonl");
    writeFileSync(path, "");
    const strict = Bun.spawnSync([process.execPath, "apps/admin/src/main.ts", "import", "--follow", "--strict", path], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: url },
    });
    expect(strict.exitCode).toBe(2);
    expect(strict.stderr.toString()).toContain("--strict cannot be used with --follow");
    const orphan = JSON.parse(tweetLine(7, "orphan")) as Record<string, unknown>;
    delete orphan.author;
    orphan.author_id = "777";
    appendFileSync(path, `${JSON.stringify(orphan)}\n${tweetLine(8, "orphan")}`);
    // The database is opened (and migrated) before the follower starts, as a server would have it.
    const follower = await withBackend(url, async (backend) => {
      const started = follow(url, path);
      await searchable(backend, [8], "orphan");
      return started;
    });
    follower.process.kill("SIGTERM");
    const run = await follower.ended();
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`:1  tweet ${tweetId(7)}'s author, user 777, is in neither the world nor this line`);
  });
});

// The moving parts of the monitors' end-to-end test: the posts a growing file receives, the writer that
// appends them over time, `admin import --follow` as an operator runs it (its own process), and a client
// that polls a pull monitor over HTTP through whatever server is up, each answer as it came.
import { appendFileSync } from "node:fs";
import { REPO_ROOT } from "@social/testing";

const FIRST_ID = 1_900_000_000_000_000_000n;

export function postId(n: number): string {
  return String(FIRST_ID + BigInt(n));
}

/** What post `n` says: every third mentions coffee, every fourth tea, the rest neither. */
export function postText(n: number): string {
  const topics = [n % 3 === 0 ? "coffee" : "", n % 4 === 0 ? "tea" : ""].filter(Boolean);
  return `live post ${n}: ${topics.length === 0 ? "water" : topics.join(" and ")}`;
}

/** Post `n` as twarc2's flatten writes it, its author embedded, as one line. */
function postLine(n: number): string {
  return `${JSON.stringify({
    id: postId(n),
    text: postText(n),
    author_id: "4242",
    created_at: new Date(Date.UTC(2026, 0, 1, 12, 0, n)).toISOString(),
    author: { id: "4242", username: "live_writer", name: "Live writer" },
  })}\n`;
}

/** The ids of posts 1 to `count` that mention `word`, in the order they are written. */
export function postsMentioning(word: string, count: number): string[] {
  const ids: string[] = [];
  for (let n = 1; n <= count; n++) if (postText(n).split(/\W+/).includes(word)) ids.push(postId(n));
  return ids;
}

export interface Writer {
  /** Lines appended so far. */
  written(): number;
  /** Settles once every line is appended. */
  done: Promise<void>;
}

/** Appends posts 1 to `count` to `path`, one every `everyMs`, as a live source would. */
export function writePosts(path: string, count: number, everyMs: number): Writer {
  let written = 0;
  const done = (async () => {
    while (written < count) {
      appendFileSync(path, postLine(++written));
      await Bun.sleep(everyMs);
    }
  })();
  return { written: () => written, done };
}

export interface Follower {
  /** SIGKILL: the follower stops wherever it is, as in a power cut. */
  kill(): Promise<void>;
  /** SIGTERM: it finishes its batch and reports; its exit code and output. */
  stop(): Promise<{ code: number; stdout: string; stderr: string }>;
}

/** `admin import --follow path` on the database, as its own process. */
export function follow(databaseUrl: string, path: string): Follower {
  const child = Bun.spawn([process.execPath, "apps/admin/src/main.ts", "import", "--follow", path], {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? "", DATABASE_URL: databaseUrl },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return {
    async kill() {
      child.kill("SIGKILL");
      await output;
    },
    async stop() {
      child.kill("SIGTERM");
      const [stdout, stderr, code] = await output;
      return { code, stdout, stderr };
    },
  };
}

export interface PolledMatch {
  seq: number;
  tweet: { id: string };
}

interface MatchesBody {
  data: { matches: PolledMatch[]; next_since: number };
  meta: { credits: { charged: number } };
}

/** One poll of the monitor's matches above `since`: its status and, for a 200, its body. */
export async function pollMatches(
  url: string,
  key: string,
  monitorId: string,
  since: number,
): Promise<{ status: number; body?: MatchesBody }> {
  const response = await fetch(`${url}/v1/monitors/${monitorId}/matches?since=${since}`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(15_000),
  });
  if (response.status !== 200) return { status: response.status };
  return { status: 200, body: (await response.json()) as MatchesBody };
}

export interface Poller {
  /** The statuses of the polls that were answered. */
  statuses: number[];
  /** Polls that got no answer: the server was down or was killed under them. */
  unanswered(): number;
  stop(): Promise<void>;
}

/**
 * A client polling the monitor from its own cursor while servers come and go: through the server `url()`
 * names at each poll, every `everyMs`, going on from each answer's next_since.
 */
export function startPolling(url: () => string, key: string, monitorId: string, everyMs: number): Poller {
  const statuses: number[] = [];
  let unanswered = 0;
  let polling = true;
  let since = 0;
  const loop = (async () => {
    while (polling) {
      try {
        const answer = await pollMatches(url(), key, monitorId, since);
        statuses.push(answer.status);
        if (answer.body) since = answer.body.data.next_since;
      } catch {
        unanswered++;
      }
      await Bun.sleep(everyMs);
    }
  })();
  return {
    statuses,
    unanswered: () => unanswered,
    async stop() {
      polling = false;
      await loop;
    },
  };
}

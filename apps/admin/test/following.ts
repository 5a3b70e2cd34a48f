// What the tests of `import --follow` share: the follower as a real process, a file that grows while it
// runs, the follower killed at whatever point of its work it is, and polling for a condition with a
// generous deadline instead of waiting a fixed time.
import { appendFileSync, statSync } from "node:fs";
import { type Backend, openBackend } from "@social/composition";
import type { FollowPosition } from "@social/core";
import { REPO_ROOT } from "@social/testing";

const DEADLINE_MS = 30_000;

export interface Follower {
  process: ReturnType<typeof Bun.spawn>;
  /** Its stdout and stderr once it has exited, with its exit code. */
  ended(): Promise<{ code: number; stdout: string; stderr: string }>;
}

export function follow(databaseUrl: string, path: string): Follower {
  const child = Bun.spawn([process.execPath, "apps/admin/src/main.ts", "import", "--follow", path], {
    cwd: REPO_ROOT,
    env: { ...process.env, DATABASE_URL: databaseUrl },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return {
    process: child,
    async ended() {
      const [stdout, stderr, code] = await output;
      return { code, stdout, stderr };
    },
  };
}

export async function until<T>(what: string, check: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + DEADLINE_MS;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what}`);
    await Bun.sleep(25);
  }
}

export async function withBackend<T>(databaseUrl: string, work: (backend: Backend) => Promise<T>): Promise<T> {
  const backend = await openBackend(databaseUrl, { max: 2 });
  try {
    return await work(backend);
  } finally {
    await backend.close();
  }
}

/** Appends `line(1)`, `line(2)`, … to `path` every 20 ms until stopped; resolves to how many it wrote. */
export function growingFile(path: string, line: (n: number) => string): { stop(): Promise<number> } {
  let written = 0;
  let writing = true;
  const writer = (async () => {
    while (writing) {
      appendFileSync(path, line(++written));
      await Bun.sleep(20);
    }
  })();
  return {
    async stop() {
      writing = false;
      await writer;
      return written;
    },
  };
}

/** The line the followed file's import has committed through (0 before any). */
export async function committedLine(backend: Backend, path: string): Promise<number> {
  return (await backend.worldImport().followPosition(path))?.line ?? 0;
}

/** Starts a follower `kills` times and SIGKILLs each once more lines are committed, at whatever point it is. */
export async function killFollowers(backend: Backend, databaseUrl: string, path: string, kills: number): Promise<void> {
  for (let kill = 1; kill <= kills; kill++) {
    const follower = follow(databaseUrl, path);
    const before = await committedLine(backend, path);
    await until("more lines to be committed", async () =>
      (await committedLine(backend, path)) > before ? true : undefined,
    );
    follower.process.kill("SIGKILL");
    await follower.ended();
  }
}

/** Waits until the import's position is the file's end. */
export function positionAtEnd(backend: Backend, path: string): Promise<FollowPosition> {
  return until("the position to reach the file's end", async () => {
    const position = await backend.worldImport().followPosition(path);
    return position?.offset === statSync(path).size ? position : undefined;
  });
}

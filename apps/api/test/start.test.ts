// What an operator sees at start: on an empty PostgreSQL database the server migrates, builds the
// default world and serves; when it cannot start, one line naming the cause, and exit code 1.
import { afterAll, beforeAll, describe, expect, it } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { examples } from "@social/fixtures";
import { type PostgresServer, startPostgres } from "@social/store-postgres/testing";
import { SERVER_RUNTIME_FLAGS } from "../src/server.ts";

const ROOT = join(import.meta.dir, "../../..");
const MAIN = join(ROOT, "apps/api/src/main.ts");
const ADMIN = join(ROOT, "apps/admin/src/main.ts");

function spawnMain(databaseUrl: string, cwd: string, env: Record<string, string> = {}) {
  return Bun.spawn([process.execPath, ...SERVER_RUNTIME_FLAGS, MAIN], {
    cwd,
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", DATABASE_URL: databaseUrl, ...env },
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
}

async function start(databaseUrl: string, cwd: string, env: Record<string, string> = {}) {
  const child = spawnMain(databaseUrl, cwd, env);
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  return { code, lines: stderr.trim().split("\n") };
}

/** Reads the server's stderr until it names the address it listens on; everything read so far too. */
async function listening(stderr: ReadableStream<Uint8Array>): Promise<{ url: string; text: string }> {
  const decoder = new TextDecoder();
  const reader = stderr.getReader();
  let text = "";
  for (;;) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`the server ended without listening:\n${text}`);
    text += decoder.decode(value, { stream: true });
    const url = text.match(/listening on (http:\S+)/)?.[1];
    if (url) return { url, text };
  }
}

describe("a DATABASE_URL no adapter serves", () => {
  it("is one clear line and exit 1, and no file or folder is created for it", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "social-start-"));
    try {
      const { code, lines } = await start("mysql://root@127.0.0.1/social", cwd);
      expect({ code, lines: lines.length }).toEqual({ code: 1, lines: 1 });
      expect(lines[0]).toStartWith("Cannot start: DATABASE_URL has the scheme mysql:");
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("a PostgreSQL that cannot be reached", () => {
  it("is one line naming the server, never the password, exit 1, and no file or folder", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "social-start-"));
    try {
      // Port 1: nothing listens there, so the connection is refused at once.
      const { code, lines } = await start("postgres://app:hunter2@127.0.0.1:1/social", cwd);
      expect({ code, lines: lines.length }).toEqual({ code: 1, lines: 1 });
      expect(lines[0]).toStartWith("Cannot start: PostgreSQL 127.0.0.1:1/social cannot be reached");
      expect(lines[0]).not.toContain("hunter2");
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("workers, rate-limit and world settings that cannot serve", () => {
  it("WEB_CONCURRENCY, REDIS_URL and WORLD are checked at start: one line each, exit 1", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "social-start-"));
    try {
      for (const [env, message] of [
        [{ WEB_CONCURRENCY: "two" }, "Cannot start: WEB_CONCURRENCY must be a whole number from 1 to 64, or auto"],
        [{ WEB_CONCURRENCY: "0" }, "Cannot start: WEB_CONCURRENCY must be a whole number from 1 to 64, or auto"],
        [{ REDIS_URL: "http://127.0.0.1:6379" }, "Cannot start: REDIS_URL must be a redis:// or rediss:// URL"],
        [{ WORLD: "imported" }, 'Cannot start: WORLD must be generated or empty, not "imported"'],
      ] as const) {
        const { code, lines } = await start(join(cwd, "social.db"), cwd, env);
        expect({ code, lines: lines.length }).toEqual({ code: 1, lines: 1 });
        expect(lines[0]).toStartWith(message);
      }
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it("with workers, a database that cannot be reached stops the supervisor with exit 1 after the first worker says why", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "social-start-"));
    try {
      const { code, lines } = await start("postgres://app:hunter2@127.0.0.1:1/social", cwd, { WEB_CONCURRENCY: "2" });
      expect(code).toBe(1);
      expect(lines[0]).toStartWith("Cannot start: PostgreSQL 127.0.0.1:1/social cannot be reached");
      expect(lines.at(-1)).toBe("supervisor: worker 1 exited with code 1 before serving: stopping");
      expect(lines.join("\n")).not.toContain("hunter2");
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("a port something else listens on", () => {
  it("stops a supervisor at start, though its workers could join the port with reusePort", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "social-start-"));
    // Another deployment's worker: a reusePort listener that a second supervisor's workers could join.
    const other = Bun.serve({ hostname: "127.0.0.1", port: 0, reusePort: true, fetch: () => new Response("other") });
    try {
      const env = { WEB_CONCURRENCY: "2", PORT: String(other.port) };
      const { code, lines } = await start(`file:${join(cwd, "social.db")}`, cwd, env);
      expect(code).toBe(1);
      expect(lines).toEqual([
        `Cannot start: 127.0.0.1:${other.port} is in use by another process; its workers would share the port with it and split the connections. Stop it, or choose another PORT`,
      ]);
      expect(readdirSync(cwd)).toEqual([]);
      expect(await (await fetch(`http://127.0.0.1:${other.port}/`)).text()).toBe("other");
    } finally {
      other.stop(true);
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});

describe("DATABASE_URL=postgres://… on an empty database", () => {
  let postgres: PostgresServer;
  beforeAll(async () => {
    postgres = await startPostgres();
  });
  afterAll(() => postgres.stop());

  it("migrates, builds the default world and serves a key the admin CLI made", async () => {
    const databaseUrl = await postgres.createDatabase("empty");
    const cwd = mkdtempSync(join(tmpdir(), "social-start-"));
    const server = spawnMain(databaseUrl, cwd);
    try {
      const { url, text } = await listening(server.stderr);
      expect(text).toContain("First start: building the default fixture world");
      expect(text).toContain(`database:    PostgreSQL ${new URL(databaseUrl).host}/empty`);
      const admin = Bun.spawn([process.execPath, ADMIN, "keys", "create", "--name", "pg"], {
        cwd: ROOT,
        env: { ...process.env, DATABASE_URL: databaseUrl },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [created, code] = await Promise.all([new Response(admin.stdout).text(), admin.exited]);
      expect(code).toBe(0);
      const key = created.trimEnd().split("\n").at(-1) as string;
      const response = await fetch(`${url}/v1/users/by-username/${examples.username}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(response.status).toBe(200);
      const body = (await response.json()) as { data: { username: string }; meta: { credits: { charged: number } } };
      expect(body.data.username.toLowerCase()).toBe(examples.username.toLowerCase());
      expect(body.meta.credits.charged).toBe(1);
      // Nothing of the database lands in the working directory: it is all on the server.
      expect(readdirSync(cwd)).toEqual([]);
      server.kill("SIGTERM");
      expect(await server.exited).toBe(0);
    } finally {
      server.kill();
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 60_000);
});

// A real PostgreSQL server for the tests: Debian's binaries (`npm test` installs the package when
// missing), a fresh cluster in a temp directory on a free loopback port, removed afterwards. initdb and
// pg_ctl refuse to run as root, so as root they run as the `postgres` user the package creates.
// Exported as @social/store-postgres/testing so that the apps' tests run their suites on it too.
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { afterProcessExit, freePort } from "@social/testing";
import { SQL } from "bun";

export interface PostgresServer {
  /** postgres://app@127.0.0.1:PORT/postgres: the maintenance database of a superuser role. */
  url: string;
  /** Whether shared_buffers lie in huge pages (see PostgresServerOptions.hugePages). */
  hugePages: boolean;
  /**
   * A new database on this server, and its URL: empty, or a copy of `template` (a file copy, so a
   * built world is cloned in a fraction of the time a build takes; nothing may be connected to it).
   * With `reuse`, a database of that name already there is kept as it is.
   */
  createDatabase(name: string, options?: { template?: string; reuse?: boolean }): Promise<string>;
  /** Drops the database `name` if there is one, closing whatever is connected to it. */
  dropDatabase(name: string): Promise<void>;
  /** Stops the server, as a crash would (immediate), so a test can take it away mid-load. */
  kill(): void;
  /** Starts it again on the same port and data. */
  restart(): void;
  stop(): void;
}

function binDir(): string {
  const root = "/usr/lib/postgresql";
  const version = existsSync(root) ? readdirSync(root).sort().at(-1) : undefined;
  if (!version) throw new Error("PostgreSQL is not installed: `npm test` installs Debian's postgresql package");
  return join(root, version, "bin");
}

/** Runs `command` (as the postgres user when root) and returns what it printed. */
function run(command: string, args: string[]): string {
  const asRoot = process.getuid?.() === 0;
  const result = asRoot
    ? spawnSync("su", ["postgres", "-s", "/bin/sh", "-c", quoted(command, args)], { encoding: "utf8" })
    : spawnSync(command, args, { encoding: "utf8" });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
  return result.stdout;
}

function quoted(command: string, args: string[]): string {
  return [command, ...args].map((a) => `'${a}'`).join(" ");
}

/**
 * Stops the cluster and removes its folder (when temporary) once this process is gone, however it ended;
 * only while the cluster still listens on this process's port: a kept one may have been started again
 * by the next benchmark meanwhile.
 */
function stopWhenGone(
  bin: string,
  data: string,
  port: number,
  removable: string | undefined,
  then: string | undefined,
): void {
  const stop = quoted(join(bin, "pg_ctl"), ["-D", data, "-m", "immediate", "stop"]);
  const asUser = process.getuid?.() === 0 ? `su postgres -s /bin/sh -c "${stop}"` : stop;
  const ours = `[ "$(sed -n 4p '${join(data, "postmaster.pid")}' 2>/dev/null)" = "${port}" ]`;
  const remove = removable === undefined ? "" : `; rm -rf '${removable}'`;
  // After the stop, so that the next server to start cannot count pages this one still holds.
  const after = then === undefined ? "" : `; ${then}`;
  afterProcessExit(`${ours} && ${asUser} >/dev/null 2>&1${remove}${after}`);
}

export interface PostgresServerOptions {
  /** The port to listen on; by default a free one the kernel picks. */
  port?: number;
  /**
   * fsync on, as in production (the benchmarks' figures); tests run without it, which only matters if
   * the machine itself crashes.
   */
  durable?: boolean;
  /**
   * A directory that keeps the cluster between runs (the benchmarks keep their large world there):
   * created on first use, started again later, never removed. Without it the cluster is temporary.
   */
  keepIn?: string;
  /**
   * PostgreSQL's own page cache (`shared_buffers`, e.g. QUARTER_OF_MEMORY). The benchmarks give it room
   * for the large world and its indexes, as an operator would: with the default 128 MB most reads go to
   * the kernel's page cache, whose cold pages this machine's memory manager reclaims between runs.
   */
  sharedBuffers?: string;
  /**
   * shared_buffers in huge pages, as PostgreSQL's documentation advises for a large one: each backend
   * then maps the cache in 2 MB pages rather than 4 kB ones, and takes a page fault on its first read
   * of each 2 MB rather than of each 4 kB (relevancy searches, which read a few thousand rows, took up to
   * twice as long on each new connection without). The kernel must hold them in reserve
   * (vm.nr_hugepages): as root, the server's count is reserved and given back once this process and the
   * server are gone; otherwise, or when the kernel cannot find them, the server runs as PostgreSQL's
   * default (huge_pages=try) has it, and `hugePages` is false.
   */
  hugePages?: boolean;
  /** More server settings, each `name=value` (e.g. `shared_preload_libraries=pg_stat_statements`). */
  settings?: string[];
}

const NR_HUGEPAGES = "/proc/sys/vm/nr_hugepages";

/** Huge pages no one holds or has reserved. */
function freeHugePages(): number {
  const meminfo = readFileSync("/proc/meminfo", "utf8");
  const field = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(meminfo)?.[1] ?? 0);
  return field("HugePages_Free") - field("HugePages_Rsvd");
}

/**
 * Whether the cluster in `data` can have its shared memory in huge pages: free ones, or (as root) ones
 * reserved for it now, whose count `restore` gives back afterwards.
 */
function hugePagesFor(bin: string, data: string, settings: string[]): { on: boolean; restore?: string } {
  try {
    // Computed by postgres itself for the settings it will start with (PostgreSQL 15 on, server stopped).
    const needed = Number(
      run(join(bin, "postgres"), ["-D", data, ...settings, "-C", "shared_memory_size_in_huge_pages"]),
    );
    if (!(needed > 0)) return { on: false };
    const missing = needed - freeHugePages();
    if (missing <= 0) return { on: true };
    if (process.getuid?.() !== 0) return { on: false };
    const before = readFileSync(NR_HUGEPAGES, "utf8").trim();
    writeFileSync(NR_HUGEPAGES, String(Number(before) + missing));
    if (freeHugePages() >= needed) return { on: true, restore: `echo ${before} > ${NR_HUGEPAGES}` };
    // The kernel found fewer: none stay held for a server that runs on normal pages.
    writeFileSync(NR_HUGEPAGES, before);
    return { on: false };
  } catch {
    return { on: false };
  }
}

/** A quarter of the machine's memory, the usual size of shared_buffers for a server of its own. */
export const QUARTER_OF_MEMORY = `${Math.floor(totalmem() / 4 / 2 ** 20)}MB`;

export async function startPostgres(options: PostgresServerOptions = {}): Promise<PostgresServer> {
  const bin = binDir();
  const dir = options.keepIn ?? mkdtempSync(join(tmpdir(), "social-pg-"));
  mkdirSync(dir, { recursive: true });
  chmodSync(dir, 0o755);
  if (process.getuid?.() === 0) {
    const { uid, gid } = postgresUser();
    chownSync(dir, uid, gid);
  }
  const data = join(dir, "data");
  const port = options.port ?? (await freePort());
  if (!existsSync(join(data, "PG_VERSION"))) {
    run(join(bin, "initdb"), ["-D", data, "-A", "trust", "-U", "app", "--no-sync", "-E", "UTF8", "--locale=C"]);
  }
  const settings = [
    "-c",
    "max_connections=200",
    ...(options.sharedBuffers === undefined ? [] : ["-c", `shared_buffers=${options.sharedBuffers}`]),
    ...(options.settings ?? []).flatMap((setting) => ["-c", setting]),
  ];
  const huge = options.hugePages === true ? hugePagesFor(bin, data, settings) : { on: false };
  if (huge.on) settings.push("-c", "huge_pages=on");
  const start = () =>
    run(join(bin, "pg_ctl"), [
      "-D",
      data,
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=${options.durable ? "on" : "off"} ${settings.join(" ")}`,
      "-l",
      join(dir, "log"),
      "-w",
      "start",
    ]);
  start();
  stopWhenGone(bin, data, port, options.keepIn === undefined ? dir : undefined, huge.restore);
  const url = `postgres://app@127.0.0.1:${port}/postgres`;
  const stop = (mode = "immediate") => run(join(bin, "pg_ctl"), ["-D", data, "-m", mode, "stop"]);
  const asAdmin = async (work: (admin: SQL) => Promise<unknown>) => {
    const admin = new SQL(url, { max: 1 });
    try {
      await work(admin);
    } finally {
      await admin.close();
    }
  };
  return {
    url,
    hugePages: huge.on,
    async createDatabase(name, options = {}) {
      const template = options.template === undefined ? "" : ` TEMPLATE "${identifier(options.template)}"`;
      await asAdmin(async (admin) => {
        const exists = await admin`SELECT 1 FROM pg_database WHERE datname = ${identifier(name)}`;
        if (!(options.reuse && exists.length > 0)) {
          await admin.unsafe(`CREATE DATABASE "${identifier(name)}"${template}`);
        }
      });
      return `postgres://app@127.0.0.1:${port}/${name}`;
    },
    dropDatabase: (name) =>
      asAdmin((admin) => admin.unsafe(`DROP DATABASE IF EXISTS "${identifier(name)}" WITH (FORCE)`)),
    kill: () => stop(),
    restart: start,
    stop() {
      try {
        // A kept cluster shuts down cleanly, so its next start needs no recovery.
        stop(options.keepIn === undefined ? "immediate" : "fast");
      } catch {
        // Already stopped by the test (kill): nothing is left to stop.
      }
      if (options.keepIn === undefined) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Test names only: anything but lower-case letters, digits and underscores is dropped. */
function identifier(name: string): string {
  return name.replace(/[^a-z0-9_]/g, "");
}

function postgresUser(): { uid: number; gid: number } {
  const result = spawnSync("id", ["-u", "postgres"], { encoding: "utf8" });
  const groups = spawnSync("id", ["-g", "postgres"], { encoding: "utf8" });
  if (result.status !== 0) throw new Error("the postgres user is missing: install Debian's postgresql package");
  return { uid: Number(result.stdout.trim()), gid: Number(groups.stdout.trim()) };
}

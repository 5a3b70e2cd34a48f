// What a load cost the PostgreSQL server, beside what it cost the API: the server's CPU (the postmaster
// and its backends, from /proc, when the server runs on this machine), transactions, statements and WAL,
// and what its backends were doing (pg_stat_activity sampled every 100 ms).
//
// Counters that are exact at any instant are read around the load: pg_stat_statements (updated as each
// statement ends), the WAL position, and the next transaction id (one per transaction that writes).
// pg_stat_database's commit count is not: a backend reports it at most once a second, and an idle one
// up to 10 s later, so it is read before the API starts and after its connections have closed.
import { SQL } from "bun";
import { cpuSeconds, parentOf } from "./proc.ts";

export interface ServerCounters {
  /** The server's CPU seconds; undefined when its processes are not visible from here. */
  cpu: number | undefined;
  /** Statements run in this database, by pg_stat_statements; undefined without the extension. */
  statements: Map<string, StatementUse> | undefined;
  walBytes: number;
  /** Transactions that wrote (each takes a transaction id). */
  writeTransactions: number;
}

/** A statement's calls, and the time the server spent executing them (planning not included). */
export interface StatementUse {
  calls: number;
  execMs: number;
}

export interface ServerCost {
  cpuSeconds: number | undefined;
  /** By statement text, most called first. */
  statements: [string, StatementUse][] | undefined;
  walBytes: number;
  writeTransactions: number;
}

/** How often pg_stat_activity is sampled during a load. */
const SAMPLE_EVERY_MS = 100;

export class PostgresProbe {
  private readonly sql: SQL;
  private postmaster: number | undefined;
  private statementsReadable = false;

  private constructor(url: string) {
    // One connection, so the probe adds a single backend the sampler leaves out.
    this.sql = new SQL(url, { max: 1 });
  }

  /** A probe of the database at `url`: pg_stat_statements created there when the server loads it. */
  static async open(url: string): Promise<PostgresProbe> {
    const probe = new PostgresProbe(url);
    const [{ pid }] = await probe.sql`SELECT pg_backend_pid() AS pid`;
    const parent = parentOf(pid);
    probe.postmaster = parent !== undefined && parent > 1 ? parent : undefined;
    try {
      await probe.sql`CREATE EXTENSION IF NOT EXISTS pg_stat_statements`;
      await probe.sql`SELECT 1 FROM pg_stat_statements LIMIT 1`;
      probe.statementsReadable = true;
    } catch {
      // Not in shared_preload_libraries, or not ours to create: the statement counts are left out.
    }
    return probe;
  }

  /** The postmaster's pid, when the server runs on this machine (for pinning and CPU). */
  get serverPid(): number | undefined {
    return this.postmaster;
  }

  get hasStatements(): boolean {
    return this.statementsReadable;
  }

  async counters(): Promise<ServerCounters> {
    const [{ lsn, xid }] = await this.sql`
      SELECT pg_current_wal_lsn() - '0/0'::pg_lsn AS lsn,
             pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS xid`;
    let statements: Map<string, StatementUse> | undefined;
    if (this.statementsReadable) {
      const rows = (await this.sql`
        SELECT query, calls, total_exec_time AS exec_ms FROM pg_stat_statements
        WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
          AND userid = (SELECT oid FROM pg_roles WHERE rolname = current_user)`) as {
        query: string;
        calls: number;
        exec_ms: number;
      }[];
      statements = new Map(
        rows.map((row) => [
          row.query.replace(/\s+/g, " ").trim(),
          { calls: Number(row.calls), execMs: Number(row.exec_ms) },
        ]),
      );
    }
    const cpu = this.postmaster === undefined ? undefined : cpuSeconds(this.postmaster, { withExited: true });
    return { cpu, statements, walBytes: Number(lsn), writeTransactions: Number(xid) };
  }

  /** What the server did between two readings, less this probe's own statements. */
  static cost(before: ServerCounters, after: ServerCounters): ServerCost {
    let statements: [string, StatementUse][] | undefined;
    if (before.statements && after.statements) {
      statements = [...after.statements]
        .map(([query, use]): [string, StatementUse] => {
          const earlier = before.statements?.get(query);
          return [query, { calls: use.calls - (earlier?.calls ?? 0), execMs: use.execMs - (earlier?.execMs ?? 0) }];
        })
        .filter(
          ([query, use]) => use.calls > 0 && !/pg_stat_statements|pg_stat_activity|pg_current_wal_lsn/.test(query),
        )
        .sort((a, b) => b[1].calls - a[1].calls);
    }
    return {
      cpuSeconds: before.cpu === undefined || after.cpu === undefined ? undefined : after.cpu - before.cpu,
      statements,
      walBytes: after.walBytes - before.walBytes,
      writeTransactions: after.writeTransactions - before.writeTransactions,
    };
  }

  /** Commits in this database so far (pg_stat_database; see the note at the top on when it is exact). */
  async commits(): Promise<number> {
    const [{ commits }] = await this.sql`
      SELECT xact_commit AS commits FROM pg_stat_database WHERE datname = current_database()`;
    return Number(commits);
  }

  /** Waits, up to `limitMs`, until no other client has a backend on this database (its stats then count). */
  async waitForNoOtherBackends(limitMs: number): Promise<void> {
    const deadline = performance.now() + limitMs;
    while (performance.now() < deadline) {
      const [{ others }] = await this.sql`
        SELECT count(*)::int AS others FROM pg_stat_activity
        WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`;
      if (others === 0) return;
      await Bun.sleep(SAMPLE_EVERY_MS);
    }
  }

  /**
   * Samples what the other backends of this database are doing until `stop` is called: per sample, each
   * backend's state, and for an active one its wait event ("CPU" when it waits on nothing), with the
   * statement that waits when it waits for a lock.
   */
  sampleActivity(): { stop: () => Promise<Map<string, number>> } {
    const seen = new Map<string, number>();
    let running = true;
    const sampling = (async () => {
      while (running) {
        const rows = (await this.sql`
          SELECT state, wait_event_type, wait_event, left(regexp_replace(query, '\s+', ' ', 'g'), 48) AS query
          FROM pg_stat_activity
          WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type = 'client backend'`) as {
          state: string | null;
          wait_event_type: string | null;
          wait_event: string | null;
          query: string;
        }[];
        for (const row of rows) {
          // A lock wait names the statement that waits: which rows the backends queue for.
          const waiting = row.wait_event_type === "Lock" ? ` (${row.query})` : "";
          const what =
            row.state === "active"
              ? row.wait_event
                ? `${row.wait_event_type}:${row.wait_event}${waiting}`
                : "CPU"
              : row.state;
          seen.set(what ?? "unknown", (seen.get(what ?? "unknown") ?? 0) + 1);
        }
        await Bun.sleep(SAMPLE_EVERY_MS);
      }
    })();
    return {
      stop: async () => {
        running = false;
        await sampling;
        return seen;
      },
    };
  }

  close(): Promise<void> {
    return this.sql.close();
  }
}

// The soak: the real server process on a private copy of the world, several accounts (half of them
// granted too little to last the run, so they hit 402 mid-way), a mixed load, then the ledger audit.
// `bun run soak` runs it at full size; soak.test.ts runs a small one through this same code.
import { auditKeyLimits, auditLedger, auditRequestLog } from "./ledger-audit.ts";
import { driveLoad, everyFourthKeyLimited, openAccounts, quantile } from "./load.ts";
import { spawnServer, worldCopy } from "./server-process.ts";

export interface SoakOptions {
  requests: number;
  concurrency: number;
  accounts: number;
  /** A hard bound on the load phase; the report says how many requests fitted in it. */
  maxSeconds: number;
  /** Server processes on the port (WEB_CONCURRENCY); 1 when absent. */
  workers?: number;
  /** Whether the server keeps the request log (REQUEST_LOG_DAYS=0 when false); on when absent. */
  requestLog?: boolean;
}

export interface SoakReport {
  requests: number;
  seconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  statuses: Record<string, number>;
  /** Accounts whose balance ran out mid-way, or whose key reached its limit (they received 402s). */
  accountsRefused: number;
  /** 402s for a key's own limit. */
  keyLimitRefusals: number;
  discrepancies: string[];
}

export const DEFAULT_SOAK: Required<SoakOptions> = {
  requests: 100_000,
  concurrency: 64,
  accounts: 8,
  maxSeconds: 600,
  workers: 1,
  requestLog: true,
};

/** Enough for every request of an account at the mix's highest cost, or for about half its requests. */
function startingCredits(index: number, options: SoakOptions): number {
  const perAccount = Math.ceil(options.requests / options.accounts);
  return index % 2 === 0 ? perAccount * 110 : perAccount * 9;
}

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const world = worldCopy();
  try {
    const grants = Array.from({ length: options.accounts }, (_, index) => startingCredits(index, options));
    const accounts = openAccounts(world.databasePath, grants, everyFourthKeyLimited(grants));
    const workers = options.workers ?? 1;
    const logged = options.requestLog ?? true;
    const server = await spawnServer(world.databasePath, {
      ...(workers > 1 ? { WEB_CONCURRENCY: String(workers) } : {}),
      ...(logged ? {} : { REQUEST_LOG_DAYS: "0" }),
    });
    let load: Awaited<ReturnType<typeof driveLoad>>;
    try {
      load = await driveLoad(server.url, accounts, {
        requests: options.requests,
        concurrency: options.concurrency,
        deadline: Date.now() + options.maxSeconds * 1000,
        pairs: true,
      });
    } finally {
      await server.stop();
    }
    const logs = await server.logs();
    const leakedKeys = accounts.filter((account) => logs.includes(account.key));
    const answered = load.latencies.length;
    const discrepancies = [
      ...load.problems,
      ...(load.unanswered > 0 ? [`${load.unanswered} requests got no answer`] : []),
      ...(leakedKeys.length > 0 ? [`${leakedKeys.length} API keys appear in the server's logs`] : []),
      ...auditLedger(world.databasePath, load.accounts),
      ...(await auditKeyLimits(world.databasePath)),
      ...(logged ? auditRequestLog(world.databasePath, load.answers) : []),
    ];
    return {
      requests: answered,
      seconds: load.seconds,
      requestsPerSecond: answered / load.seconds,
      p50Ms: quantile(load.latencies, 0.5),
      p99Ms: quantile(load.latencies, 0.99),
      statuses: Object.fromEntries([...load.statuses].sort(([a], [b]) => a - b)),
      accountsRefused: load.refusedAccounts.size,
      keyLimitRefusals: load.keyLimitRefusals,
      discrepancies,
    };
  } finally {
    world.remove();
  }
}

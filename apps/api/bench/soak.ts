// `bun run soak [--requests N] [--concurrency N] [--accounts N] [--max-seconds N] [--workers N]`: the
// ledger soak against the real server on loopback, from one process or N workers (see
// test/reliability/soak.ts), run without the request log (REQUEST_LOG_DAYS=0) and with it, twice each
// (off, on, on, off), so the log's cost reads as a ratio measured on the same machine in the same
// minutes. Exits 1 on any discrepancy.
import { parseArgs } from "node:util";
import { DEFAULT_SOAK, runSoak, type SoakOptions } from "../test/reliability/soak.ts";

function positiveInteger(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < 1) throw new Error(`--${name} must be a positive integer`);
  return value;
}

const { values } = parseArgs({
  options: {
    requests: { type: "string" },
    concurrency: { type: "string" },
    accounts: { type: "string" },
    "max-seconds": { type: "string" },
    workers: { type: "string" },
  },
});
const options: SoakOptions = {
  requests: positiveInteger("requests", values.requests, DEFAULT_SOAK.requests),
  concurrency: positiveInteger("concurrency", values.concurrency, DEFAULT_SOAK.concurrency),
  accounts: positiveInteger("accounts", values.accounts, DEFAULT_SOAK.accounts),
  maxSeconds: positiveInteger("max-seconds", values["max-seconds"], DEFAULT_SOAK.maxSeconds),
  workers: positiveInteger("workers", values.workers, DEFAULT_SOAK.workers),
};

console.error(
  `soak: ${options.requests} requests, ${options.concurrency} clients, ${options.accounts} accounts, ${options.workers} server process(es), at most ${options.maxSeconds} s, without then with the request log`,
);
let failed = false;
const rates = { off: [] as number[], on: [] as number[] };
// Off, on, on, off: a machine that warms up or slows down during the runs weighs on both alike.
for (const requestLog of [false, true, true, false]) {
  const report = await runSoak({ ...options, requestLog });
  (requestLog ? rates.on : rates.off).push(report.requestsPerSecond);
  console.log(`request log:      ${requestLog ? "on" : "off"}
requests:         ${report.requests} in ${report.seconds.toFixed(1)} s
requests/s:       ${Math.round(report.requestsPerSecond)}
latency p50/p99:  ${report.p50Ms.toFixed(1)} / ${report.p99Ms.toFixed(1)} ms
statuses:         ${JSON.stringify(report.statuses)}
accounts refused: ${report.accountsRefused} of ${options.accounts} ran out of credits mid-way
discrepancies:    ${report.discrepancies.length}`);
  for (const discrepancy of report.discrepancies.slice(0, 50)) console.log(`  ${discrepancy}`);
  if (report.requests < options.requests) console.log(`stopped at the ${options.maxSeconds} s bound`);
  failed ||= report.discrepancies.length > 0 || report.requests < options.requests;
}
const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
console.log(`throughput with the request log / without: ${(mean(rates.on) / mean(rates.off)).toFixed(3)}`);
process.exit(failed ? 1 : 0);

// What a process tree has cost, read from /proc around a load: CPU time, read() calls and memory. A
// tree is a process and its children: the API's supervisor and its workers, or PostgreSQL's postmaster
// and its backends.
import { readFileSync } from "node:fs";

/** Linux's USER_HZ: /proc/PID/stat counts CPU time in these ticks. */
const TICKS_PER_SECOND = 100;

/** The process and its children (one level: workers of a supervisor, backends of a postmaster). */
export function processTree(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim();
  return [pid, ...(children === "" ? [] : children.split(" ").map(Number))];
}

/** Fields after the command name of /proc/PID/stat, 0 being field 3 (state). */
function statFields(pid: number): string[] {
  return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
}

/** The parent's pid (field 4 of /proc/PID/stat); undefined when the process is not visible here. */
export function parentOf(pid: number): number | undefined {
  try {
    return Number(statFields(pid)[1]);
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds (user + system, fields 14 and 15) the tree has used. With `withExited`, the root's
 * children that have exited count too (fields 16 and 17): PostgreSQL's backends of closed connections.
 * A process that exits between reading the list and its stat counts as nothing.
 */
export function cpuSeconds(pid: number, options: { withExited?: boolean } = {}): number {
  let ticks = 0;
  for (const one of processTree(pid)) {
    try {
      const fields = statFields(one);
      ticks += Number(fields[11]) + Number(fields[12]);
      if (options.withExited && one === pid) ticks += Number(fields[13]) + Number(fields[14]);
    } catch {}
  }
  return ticks / TICKS_PER_SECOND;
}

/**
 * read() calls the tree has made (/proc/PID/io syscr). SQLite reads a page with one pread when it is
 * not in the connection's page cache, so reads per request say whether that cache survives checkpoints
 * and other connections' commits (a cache dropped by each one shows as reads on every lookup).
 */
export function readCalls(pid: number): number {
  return processTree(pid).reduce((sum, one) => {
    const io = readFileSync(`/proc/${one}/io`, "utf8");
    return sum + Number(io.match(/syscr:\s+(\d+)/)?.[1] ?? 0);
  }, 0);
}

/** The tree's resident memory, its processes together. */
export function rssBytes(pid: number): number {
  return processTree(pid).reduce((sum, one) => {
    const text = readFileSync(`/proc/${one}/status`, "utf8");
    return sum + Number(text.match(/VmRSS:\s+(\d+)/)?.[1] ?? 0) * 1024;
  }, 0);
}

/** Pins every thread of the tree's processes to `cores` (a taskset list); later children inherit it. */
export function pinTree(pid: number, cores: string): void {
  for (const one of processTree(pid)) Bun.spawnSync(["taskset", "-a", "-cp", cores, String(one)], { stdout: "ignore" });
}

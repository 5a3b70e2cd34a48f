// What an import run prints once it is done, followed or not: lines and rate, what was added, updated
// and kept, the pages' errors, what was refused (the first of it, by file and line), and the world after.
import type { ImportReport } from "@social/core";
import { formatTable, formatWorld, formatCount as n } from "../format.ts";

export function printReport(report: ImportReport, seconds: number): void {
  const rate = seconds > 0 ? Math.round(report.lines / seconds) : report.lines;
  console.log(`read ${n(report.lines)} lines in ${seconds.toFixed(1)} s (${n(rate)} lines/s)`);
  console.log(
    formatTable([
      ["", "added", "updated", "kept"],
      ...(["users", "tweets"] as const).map((kind) => [
        kind,
        n(report[kind].added),
        n(report[kind].updated),
        n(report[kind].kept),
      ]),
    ]),
  );
  if (report.missing > 0) {
    console.log(
      `${n(report.missing)} of the pages' errors: posts or users X could not return (deleted, protected, suspended)`,
    );
  }
  for (const stop of report.abandoned) {
    console.log(`${stop.source}: nothing imported (--strict): line ${n(stop.line)}: ${stop.reason}`);
  }
  if (report.refused > 0) {
    const listed = report.refusals.length < report.refused ? ` (the first ${report.refusals.length})` : "";
    console.log(`refused ${n(report.refused)}${listed}:`);
    for (const refusal of report.refusals) console.log(`  ${refusal.source}:${refusal.line}  ${refusal.reason}`);
  }
  console.log(formatWorld(report.world));
}

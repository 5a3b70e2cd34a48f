// `import --follow FILE|-`: a growing JSON Lines file (or standard input) imported line by line as it
// arrives, until SIGINT or SIGTERM (or standard input's end) stops it, then the usual report. A file's
// position is stored with each batch it covers (the WorldImport port), so a restart, after a kill at
// any moment, resumes exactly after the last committed line; a file replaced or truncated since is
// read from its beginning. The posts each batch adds are matched against the monitors once it commits
// (../import/monitor-matching.ts). docs/operations.md says what an operator sees.
import { resolve } from "node:path";
import { type FollowPosition, followSource, type ImportFormat } from "@social/core";
import { CommandError } from "../cli.ts";
import { withOperator } from "../database.ts";
import { checkedFile } from "../import/checked-file.ts";
import { type FileIdentity, fileIdentity, followLines } from "../import/follow-lines.ts";
import { matchingImport } from "../import/monitor-matching.ts";
import { printReport } from "../import/report.ts";

const GZIP_MAGIC = [0x1f, 0x8b];
const STOP_SIGNALS = ["SIGINT", "SIGTERM"] as const;

/** Where a followed file's import starts: after its stored position, or from its beginning (and why). */
function startOf(
  stored: FollowPosition | undefined,
  file: FileIdentity & { size: number },
): { offset: number; line: number; notice: string } {
  const fromStart = (why: string) => ({
    offset: 0,
    line: 0,
    notice: `${file.path}: ${why}, following it from its beginning`,
  });
  if (stored === undefined) return fromStart("never followed before");
  if (stored.device !== file.device || stored.inode !== file.inode)
    return fromStart(`not the file followed before (a new file at its path)`);
  if (file.size < stored.offset)
    return fromStart(`truncated below the position of line ${stored.line} (byte ${stored.offset})`);
  return {
    offset: stored.offset,
    line: stored.line,
    notice: `${file.path}: resumed after line ${stored.line} (byte ${stored.offset})`,
  };
}

async function refuseGzip(path: string): Promise<void> {
  const head = new Uint8Array(await Bun.file(path).slice(0, 2).arrayBuffer());
  if (head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1])
    throw new CommandError(`${path} is gzip-compressed: --follow reads plain JSON Lines as they are written`);
}

export async function followImport(name: string, format: ImportFormat): Promise<void> {
  const stdin = name === "-";
  const path = stdin ? undefined : resolve(checkedFile(name).path);
  if (path !== undefined) await refuseGzip(path);
  const say = (line: string) => process.stderr.write(`${line}\n`);
  const stopping = new AbortController();
  const stop = () => stopping.abort();
  for (const signal of STOP_SIGNALS) process.on(signal, stop);
  const started = performance.now();
  let resumed = "standard input: no position is kept, every line given is imported";
  try {
    const report = await withOperator(async (operator) => {
      const port = await matchingImport(operator, say);
      let file: { identity: FileIdentity; offset: number; line: number } | undefined;
      if (path !== undefined) {
        const identity = await fileIdentity(path);
        const start = startOf(await port.followPosition(path), identity);
        file = { identity, offset: start.offset, line: start.line };
        resumed = start.notice;
      }
      say(resumed);
      const lines = followLines({ ...(file === undefined ? {} : { file }), signal: stopping.signal, say });
      return followSource({ name, events: () => lines }, port, { format, strict: false });
    });
    console.log(resumed);
    printReport(report, (performance.now() - started) / 1000);
  } finally {
    for (const signal of STOP_SIGNALS) process.off(signal, stop);
  }
}

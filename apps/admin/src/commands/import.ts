// `import FILE…`: X API v2 pages or objects, as JSON Lines (plain or gzip), into the world DATABASE_URL
// names. The importer (@social/core import) decides what each line makes and what replaces what; this
// command reads the files, shows progress per file with lines per second, matches the posts each batch
// adds against the monitors (../import/monitor-matching.ts), and prints what was added, updated, kept and
// refused. A file that cannot be read is a one-line error, never a stack.
import { parseArgs } from "node:util";
import { IMPORT_FORMATS, type ImportFormat, type ImportSource, importSources } from "@social/core";
import { CommandError, UsageError, usageErrors } from "../cli.ts";
import { withOperator } from "../database.ts";
import { checkedFile } from "../import/checked-file.ts";
import { type FileLines, fileLines } from "../import/json-lines.ts";
import { matchingImport } from "../import/monitor-matching.ts";
import { printReport } from "../import/report.ts";
import { progressBar } from "../progress.ts";
import { followImport } from "./import-follow.ts";

function parseFormat(value: string | undefined): ImportFormat {
  if (value === undefined) return "auto";
  const format = IMPORT_FORMATS.find((name) => name === value);
  if (format === undefined)
    throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(", ")}, got ${JSON.stringify(value)}`);
  return format;
}

interface Reading {
  file: { path: string; size: number };
  reader: FileLines;
  /** When its current pass began, for lines per second. */
  startedAt: number;
}

/** A file as the importer reads it, its read errors turned into the operator's one line. */
function source(reading: Reading): ImportSource {
  const { file, reader } = reading;
  return {
    name: file.path,
    async *lines() {
      reading.startedAt = performance.now();
      try {
        yield* reader.lines();
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new CommandError(`${file.path} could not be read to the end (${reason})`);
      }
    },
  };
}

export async function importCommand(args: readonly string[]): Promise<void> {
  const { values, positionals } = usageErrors(() =>
    parseArgs({
      args: [...args],
      options: { format: { type: "string" }, strict: { type: "boolean" }, follow: { type: "boolean" } },
      allowPositionals: true,
    }),
  );
  if (positionals.length === 0) throw new UsageError("import needs at least one FILE");
  const format = parseFormat(values.format);
  if (values.follow === true) {
    if (positionals.length > 1) throw new UsageError("import --follow takes one FILE (or - for standard input)");
    // A strict run checks a whole file before it imports any of it, and a followed file has no whole.
    if (values.strict === true)
      throw new UsageError("--strict cannot be used with --follow: a followed file never ends");
    return followImport(positionals[0] as string, format);
  }
  const files = positionals.map(checkedFile);
  const readings = new Map<string, Reading>(
    files.map((file) => [file.path, { file, reader: fileLines(file.path), startedAt: 0 }]),
  );

  const started = performance.now();
  let current = { name: "", bar: progressBar("") };
  const warn = (line: string) => process.stderr.write(`${line}\n`);
  const report = await withOperator(async (operator) =>
    importSources([...readings.values()].map(source), await matchingImport(operator, warn), {
      format,
      strict: values.strict === true,
      onProgress: ({ source: name, line, pass }) => {
        const label = `${pass === "check" ? "check " : ""}${name}`;
        if (label !== current.name) {
          current.bar.finish();
          current = { name: label, bar: progressBar(label) };
        }
        const reading = readings.get(name);
        const seconds = (performance.now() - (reading?.startedAt ?? started)) / 1000;
        const rate = seconds > 0 ? Math.round(line / seconds) : 0;
        current.bar.update(reading?.reader.bytesRead ?? 0, reading?.file.size ?? 0, {
          detail: `${line.toLocaleString("en-US")} lines  ${rate.toLocaleString("en-US")} lines/s`,
        });
      },
    }),
  );
  current.bar.finish();
  printReport(report, (performance.now() - started) / 1000);
  if (report.abandoned.length > 0) {
    throw new CommandError(
      `--strict: nothing imported from ${report.abandoned.map(({ source: name }) => name).join(", ")}`,
    );
  }
}

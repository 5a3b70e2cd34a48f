// What an import run reads (sources, followed sources and their lines), how it is told to run, and
// what it reports: the importer's public shapes, apart from how it runs (./importer.ts).
import type { FollowPosition, ImportedWorld } from "../ports/world-import.ts";
import type { ImportOutcome } from "./freshness.ts";
import type { ImportFormat } from "./lines.ts";

export interface ImportSource {
  /** What the operator calls it (its file name), in refusals. */
  name: string;
  /** Its lines, read anew on each call: a strict run reads a source twice. */
  lines(): AsyncIterable<string>;
}

/** A line of a followed source, numbered in its file, with the position its commit records (none for standard input). */
export interface FollowedLine {
  text: string;
  line: number;
  position?: FollowPosition;
}

/**
 * A followed source's lines as they arrive, "commit" when what was read should be committed now (the
 * source went quiet, or a line has been held long enough: when is the reader's to decide), and "idle"
 * now and then while nothing comes, when the run may catch up on settling the world.
 */
export interface FollowedSource {
  name: string;
  events(): AsyncIterable<FollowedLine | "commit" | "idle">;
}

export interface ImportProgress {
  source: string;
  line: number;
  pass: "check" | "write";
}

export interface ImportOptions {
  format: ImportFormat;
  strict: boolean;
  /** The most lines, and objects, one batch (one transaction) holds. */
  batchLines?: number;
  batchObjects?: number;
  onProgress?: (progress: ImportProgress) => void;
}

export interface LineRefusal {
  source: string;
  line: number;
  reason: string;
}

export interface ImportReport {
  /** Lines read and imported (a strict run's check pass is not counted). */
  lines: number;
  users: Record<ImportOutcome, number>;
  tweets: Record<ImportOutcome, number>;
  /** Objects and lines refused. */
  refused: number;
  /** The first MAX_LISTED_REFUSALS of them. */
  refusals: LineRefusal[];
  /** Resources X reported missing in the pages' errors (deleted posts, gone accounts). */
  missing: number;
  /** Sources a strict run imported nothing of, each with the line that stopped it. */
  abandoned: LineRefusal[];
  world: ImportedWorld;
}

export const MAX_LISTED_REFUSALS = 20;

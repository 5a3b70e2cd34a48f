// The lines of a file that keeps growing (or of standard input) as they arrive, for `import --follow`:
// each whole line with the position its commit records, "commit" when what was read should be
// committed now, and "idle" at each look that found nothing new. A partial last line waits for its newline. A followed file replaced at its path (a new
// inode: rotation) or cut below what was read (truncation) is read again from its beginning, said on
// stderr. Standard input has no position: nothing can be resumed from it.
import { type FileHandle, open, stat } from "node:fs/promises";
import { type FollowedLine, type FollowPosition, MAX_LINE_CHARS } from "@social/core";

/** A read line is committed once no new line has come for this long: lines that come together land together. */
export const IDLE_COMMIT_MS = 200;
/** A steady trickle that never goes quiet is still committed this often: no read line is held for long. */
export const MAX_HOLD_MS = 1000;
/** How often a followed file at its end is looked at again for new lines, rotation or truncation. */
const POLL_MS = 50;
const CHUNK_BYTES = 64 * 1024;
/** A UTF-8 line this long holds more than MAX_LINE_CHARS characters for sure: cut there, the importer refuses it. */
const MAX_LINE_BYTES = 3 * MAX_LINE_CHARS + 3;
const NEWLINE = 0x0a;

/** The followed file as the position names it. */
export interface FileIdentity {
  path: string;
  device: string;
  inode: string;
}

/** Bytes that arrived, nothing yet, the end (standard input closed), or a file started over from byte 0. */
type Chunk = Uint8Array | "nothing" | "end" | { restart: FileIdentity };

interface ByteSource {
  next(): Promise<Chunk>;
  close(): Promise<void>;
}

export async function fileIdentity(path: string): Promise<FileIdentity & { size: number }> {
  const info = await stat(path, { bigint: true });
  return { path, device: String(info.dev), inode: String(info.ino), size: Number(info.size) };
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}

/** A followed file from `offset`; at its end it says "nothing" until it grows, is replaced or is truncated. */
async function fileBytes(start: FileIdentity, offset: number, say: (line: string) => void): Promise<ByteSource> {
  let identity = start;
  let handle: FileHandle = await open(start.path, "r");
  let at = offset;
  const buffer = new Uint8Array(CHUNK_BYTES);
  const read = async () => (await handle.read(buffer, 0, CHUNK_BYTES, at)).bytesRead;
  return {
    async next() {
      let got = await read();
      if (got === 0) {
        const current = await fileIdentity(identity.path).catch(() => undefined);
        const replaced =
          current !== undefined && (current.device !== identity.device || current.inode !== identity.inode);
        // What the writer put in the old file before it was replaced is read first.
        got = await read();
        if (got === 0 && replaced) {
          say(`${identity.path} was replaced (a new file at its path): reading it from its beginning`);
          await handle.close();
          handle = await open(identity.path, "r");
          identity = await fileIdentity(identity.path);
          at = 0;
          return { restart: { path: identity.path, device: identity.device, inode: identity.inode } };
        }
        if (got === 0 && (await handle.stat()).size < at) {
          say(`${identity.path} was truncated below byte ${at}: reading it from its beginning`);
          at = 0;
          return { restart: identity };
        }
        if (got === 0) return "nothing";
      }
      at += got;
      return buffer.slice(0, got);
    },
    close: () => handle.close(),
  };
}

/** Standard input's bytes; "nothing" when none came within POLL_MS, "end" once it is closed. */
function standardInput(): ByteSource {
  const reader = Bun.stdin.stream().getReader();
  let pending: Promise<{ done: boolean; value?: Uint8Array }> | undefined;
  return {
    async next() {
      pending ??= reader.read();
      const quiet = new Promise<"nothing">((resolve) => setTimeout(() => resolve("nothing"), POLL_MS));
      const result = await Promise.race([pending, quiet]);
      if (result === "nothing") return "nothing";
      pending = undefined;
      return result.done || result.value === undefined ? "end" : result.value;
    },
    async close() {
      await reader.cancel().catch(() => undefined);
    },
  };
}

export interface FollowStart {
  /** The file and where to start in it, or undefined for standard input. */
  file?: { identity: FileIdentity; offset: number; line: number };
  signal: AbortSignal;
  /** A notice for the operator (stderr). */
  say(line: string): void;
}

/** The lines of a followed file or standard input, and when to commit, until `signal` stops it or input ends. */
export async function* followLines(start: FollowStart): AsyncGenerator<FollowedLine | "commit" | "idle"> {
  const { file, signal, say } = start;
  const source = file === undefined ? standardInput() : await fileBytes(file.identity, file.offset, say);
  let identity = file?.identity;
  let consumed = file?.offset ?? 0;
  let line = file?.line ?? 0;
  /** The current line's bytes so far (at most MAX_LINE_BYTES kept), and how many it has in all. */
  let pending: Uint8Array = new Uint8Array(0);
  let pendingBytes = 0;
  let lastLineAt = 0;
  let heldSince: number | undefined;
  const decoder = new TextDecoder("utf-8");
  const position = (): FollowPosition | undefined =>
    identity === undefined ? undefined : { ...identity, offset: consumed, line };
  try {
    while (!signal.aborted) {
      const chunk = await source.next();
      if (chunk === "end") {
        // Standard input closed: its last line is whole, newline or not.
        if (pendingBytes > 0) yield { text: decoder.decode(pending), line: line + 1 };
        break;
      }
      if (chunk === "nothing") {
        if (heldSince !== undefined && performance.now() - lastLineAt >= IDLE_COMMIT_MS) {
          heldSince = undefined;
          yield "commit";
        } else yield "idle";
        if (file !== undefined) await sleep(POLL_MS, signal);
        continue;
      }
      if (!(chunk instanceof Uint8Array)) {
        // Lines read before the restart are committed with the old file's position; the new one starts at 0.
        if (heldSince !== undefined) yield "commit";
        heldSince = undefined;
        identity = chunk.restart;
        consumed = 0;
        line = 0;
        pending = new Uint8Array(0);
        pendingBytes = 0;
        continue;
      }
      let from = 0;
      for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, from)) {
        const part = chunk.subarray(from, end);
        const text = decoder.decode(kept(pending, part));
        consumed += pendingBytes + part.length + 1;
        pending = new Uint8Array(0);
        pendingBytes = 0;
        from = end + 1;
        line++;
        lastLineAt = performance.now();
        heldSince ??= lastLineAt;
        yield { text: text.endsWith("\r") ? text.slice(0, -1) : text, line, ...withPosition(position()) };
      }
      const rest = chunk.subarray(from);
      pending = kept(pending, rest);
      pendingBytes += rest.length;
      if (heldSince !== undefined && performance.now() - heldSince >= MAX_HOLD_MS) {
        heldSince = undefined;
        yield "commit";
      }
    }
  } finally {
    await source.close();
  }
}

/** `held` followed by as much of `more` as a line keeps. */
function kept(held: Uint8Array, more: Uint8Array): Uint8Array {
  const taken = more.subarray(0, Math.max(0, MAX_LINE_BYTES - held.length));
  const both = new Uint8Array(held.length + taken.length);
  both.set(held);
  both.set(taken, held.length);
  return both;
}

function withPosition(position: FollowPosition | undefined): { position?: FollowPosition } {
  return position === undefined ? {} : { position };
}

// One structured line per request: id, method, path, status, credits charged, duration, and the
// process that served it (one of several workers). The query
// string and headers are never logged, so keys and tokens cannot leak into logs.
import { requestPath } from "@social/core";

export type LogSink = (line: string) => void;

/**
 * The most bytes one write holds: a pipe keeps a write of up to PIPE_BUF (4,096 bytes on Linux) whole,
 * while a longer one may be split, and another worker's lines written into the middle of one.
 */
const WRITE_MAX_BYTES = 4096;

/**
 * The lines to `print` (console.log: stdout) once per turn of the event loop, joined, in writes of at
 * most WRITE_MAX_BYTES. A loaded worker answers dozens of requests a turn, and a line per write was a
 * system call per request, made by every worker on the one stdout they share (a pipe to the
 * operator's log collector, whose lock each write takes). What is waiting when the process exits is
 * written then; a process killed outright loses at most its last turn's lines, which the ledger's
 * request log (the dashboard's) records too.
 */
export function linesPerTurn(print: (text: string) => void): LogSink {
  let waiting: string[] = [];
  /** What the waiting lines take in a write: their bytes and a newline each. */
  let bytes = 0;
  let scheduled = false;
  const write = () => {
    scheduled = false;
    if (waiting.length === 0) return;
    const text = waiting.join("\n");
    waiting = [];
    bytes = 0;
    print(text);
  };
  process.on("exit", write);
  return (line) => {
    const size = Buffer.byteLength(line) + 1;
    if (bytes + size > WRITE_MAX_BYTES) write();
    waiting.push(line);
    bytes += size;
    if (!scheduled) {
      scheduled = true;
      setImmediate(write);
    }
  };
}

/** The process's request log on stdout: one writer, so one exit handler, however many apps it serves. */
export const stdoutLog: LogSink = linesPerTurn((text) => console.log(text));

/** What a handler reports for the log line; the ledger, not this, is what bills. */
export interface RequestUsage {
  credits: number;
}

interface FinishedRequest {
  id: string;
  request: Request;
  status: number;
  credits: number;
  startedAt: number;
}

export function requestLine({ id, request, status, credits, startedAt }: FinishedRequest): string {
  return JSON.stringify({
    at: new Date().toISOString(),
    id,
    method: request.method,
    path: requestPath(request.url),
    status,
    credits,
    ms: Math.round((performance.now() - startedAt) * 100) / 100,
    pid: process.pid,
  });
}

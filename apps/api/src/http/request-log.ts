// One structured line per request: id, method, path, status, credits charged, duration, and the
// process that served it (one of several workers). The query
// string and headers are never logged, so keys and tokens cannot leak into logs.
import { requestPath } from "@social/core";

export type LogSink = (line: string) => void;

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

// One structured line per request: id, method, path, status, credits charged, duration. The query
// string and headers are never logged, so keys and tokens cannot leak into logs.
import { requestPath } from "@social/core";

const started = new WeakMap<Request, { id: string; at: number }>();

export function beginRequest(request: Request, id: string): void {
  started.set(request, { id, at: performance.now() });
}

export function requestIdOf(request: Request): string | undefined {
  return started.get(request)?.id;
}

export type LogSink = (line: string) => void;

export function finishRequest(sink: LogSink, request: Request, response: Response, credits = 0): Response {
  const start = started.get(request);
  if (!start) return response;
  started.delete(request);
  sink(
    JSON.stringify({
      at: new Date().toISOString(),
      id: start.id,
      method: request.method,
      path: requestPath(request.url),
      status: response.status,
      credits,
      ms: Math.round((performance.now() - start.at) * 100) / 100,
    }),
  );
  return response;
}

// The one answer every adapter gives a database outage, service_unavailable, so every surface (HTTP,
// MCP, the dashboard, the CLI) answers it alike. Each adapter says what an outage is for its database;
// this says what is done about it.
import { ApiError } from "./errors.ts";

export type OutageTest = (error: unknown) => boolean;

/** Seconds a client is told to wait before retrying: a database that restarts is back within a few. */
export const OUTAGE_RETRY_AFTER_S = 2;

function unavailableIfOutage(error: unknown, isOutage: OutageTest): never {
  if (!isOutage(error)) throw error;
  // The client learns only that it may retry; the operator needs the database's own words.
  console.error(
    JSON.stringify({
      at: new Date().toISOString(),
      level: "error",
      kind: "service_unavailable",
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    }),
  );
  throw new ApiError("service_unavailable", "The service is temporarily unavailable: retry in a few seconds", {
    retryAfter: OUTAGE_RETRY_AFTER_S,
  });
}

/**
 * Makes every method of the class `port` turn an outage, thrown or rejected, into ApiError
 * service_unavailable; every other error passes unchanged. Done to the class rather than to an
 * instance, so that no caller can hold a port of the adapter that answers an outage otherwise.
 */
export function answerOutagesAsUnavailable(port: { prototype: object }, isOutage: OutageTest): void {
  const unavailable = (error: unknown) => unavailableIfOutage(error, isOutage);
  for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(port.prototype))) {
    const method: unknown = descriptor.value;
    if (name === "constructor" || typeof method !== "function") continue;
    Object.defineProperty(port.prototype, name, {
      ...descriptor,
      value: function (this: unknown, ...args: unknown[]): unknown {
        try {
          const result: unknown = method.apply(this, args);
          return result instanceof Promise ? result.catch(unavailable) : result;
        } catch (error) {
          return unavailable(error);
        }
      },
    });
  }
}

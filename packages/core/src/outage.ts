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
 * `port` answering outages: an object with the same methods, each calling `port`'s own, whose outage,
 * thrown or rejected, becomes ApiError service_unavailable; every other error, and every result, passes
 * unchanged (a synchronous method stays synchronous). The composition of an adapter (packages/composition)
 * hands out only such objects, so that no caller holds a port that answers an outage otherwise. A port
 * is its methods: a public property that is no method is refused, since it could not answer an outage.
 */
export function answeringOutages<Port extends object>(port: Port, isOutage: OutageTest): Port {
  const unavailable = (error: unknown) => unavailableIfOutage(error, isOutage);
  const answering: Record<string, unknown> = {};
  for (const [name, descriptor] of memberDescriptors(port)) {
    const method: unknown = descriptor.value;
    if (typeof method !== "function") throw new TypeError(`${name} is not a method: a port holds methods only`);
    answering[name] = (...args: unknown[]): unknown => {
      try {
        const result: unknown = method.apply(port, args);
        return result instanceof Promise ? result.catch(unavailable) : result;
      } catch (error) {
        return unavailable(error);
      }
    };
  }
  return answering as Port;
}

/** What `port` answers to, its own members and its classes', each as the class nearest to it defines it. */
function memberDescriptors(port: object): Map<string, PropertyDescriptor> {
  const members = new Map<string, PropertyDescriptor>();
  for (let level: object | null = port; level !== null && level !== Object.prototype; ) {
    for (const [name, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(level))) {
      if (name !== "constructor" && !members.has(name)) members.set(name, descriptor);
    }
    level = Object.getPrototypeOf(level);
  }
  return members;
}

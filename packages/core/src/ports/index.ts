// Every port an adapter implements, one file each with the types that belong to it. A database adapter
// implements all of them but RateLimiter: docs/adapters.md is the checklist.
export * from "./accounts.ts";
export * from "./idempotency.ts";
export * from "./ledger.ts";
export * from "./monitors.ts";
export * from "./rate-limiter.ts";
export * from "./request-log.ts";
export * from "./sessions.ts";
export * from "./store.ts";
export * from "./world-import.ts";
export * from "./world-removal.ts";
export * from "./world-sink.ts";

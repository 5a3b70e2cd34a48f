// Monitors: saved queries matched against arriving posts and delivered to their account (docs/monitors.md).
export * from "./charge.ts";
export * from "./endpoints.ts";
export * from "./manage.ts";
export { type MatchingPorts, matchArrivals, type PercolatorCache } from "./match-arrivals.ts";
export * from "./model.ts";
export { type MonitorQuery, Percolator } from "./percolator.ts";
export { parseMonitorQuery } from "./query.ts";
export * from "./read-matches.ts";
export * from "./settings.ts";
export * from "./signature.ts";
export * from "./view.ts";
export * from "./webhook-retry.ts";
export * from "./webhook-url.ts";

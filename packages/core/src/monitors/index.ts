export { type MonitorQuery, Percolator } from "./percolator.ts";
export { parseMonitorQuery } from "./query.ts";

export * from "./account-ports.ts";
export * from "./account-reads.ts";
export * from "./catalogue/index.ts";
export * from "./costs.ts";
export * from "./credentials.ts";
export {
  creditsText,
  describeFit,
  describeKeyLimit,
  describeShortfall,
  type FewerItems,
  fewerItemsOf,
  type Shortfall,
  shortfallOf,
} from "./credit-refusal.ts";
export * from "./database-url.ts";
export * from "./decisions.ts";
export * from "./endpoint.ts";
export * from "./envelope.ts";
export * from "./errors.ts";
export * from "./execute.ts";
export * from "./idempotency.ts";
export * from "./import/index.ts";
export * from "./json-schema.ts";
export * from "./json-text.ts";
export * from "./key-options.ts";
export * from "./ledger-errors.ts";
export * from "./lookup-list.ts";
export * from "./low-balance.ts";
export * from "./model.ts";
export * from "./outage.ts";
export * from "./params.ts";
export * from "./ports.ts";
export * from "./ratelimit.ts";
export * from "./read-range.ts";
export * from "./request.ts";
export * from "./request-budget.ts";
export * from "./request-controls.ts";
export * from "./request-log.ts";
export * from "./search/index.ts";
export * from "./services.ts";
export * from "./tokens.ts";
export * from "./v2-mapping.ts";

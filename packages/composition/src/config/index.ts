export * from "./billing.ts";
export * from "./read.ts";
export * from "./values.ts";
export * from "./variables.ts";

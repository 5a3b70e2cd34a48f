export * from "./authenticate.ts";
export * from "./execute.ts";
export * from "./read-request.ts";
export * from "./validate.ts";

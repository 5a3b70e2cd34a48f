export * from "./model.ts";
export * from "./ports.ts";
export * from "./search/ast.ts";

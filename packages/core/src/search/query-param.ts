// Turns the parser's typed syntax error into the invalid_request every surface answers with.
import { invalidRequest } from "../errors.ts";
import type { SearchNode } from "./ast.ts";
import { SearchSyntaxError } from "./errors.ts";
import { parseQuery } from "./parse.ts";

export function parseSearchQuery(query: string): SearchNode {
  try {
    return parseQuery(query);
  } catch (error) {
    if (error instanceof SearchSyntaxError) {
      throw invalidRequest(`query: ${error.message}`, [{ parameter: "query", message: error.message }]);
    }
    throw error;
  }
}

// The one error the query parser throws. `problem` is for code and tests, the message is for the person
// who wrote the query; surfaces turn it into a 400 invalid_request.

const TITLES = {
  query_too_long: "Query too long",
  too_complex: "Query too complex",
  empty_query: "Empty query",
  unbalanced_parenthesis: "Unbalanced parenthesis",
  empty_group: "Empty group",
  unterminated_quote: "Unterminated quote",
  empty_phrase: "Empty phrase",
  dangling_or: "Dangling OR",
  unknown_operator: "Unknown operator",
  unsupported_operator: "Unsupported operator",
  missing_value: "Missing value",
  bad_username: "Bad username",
  bad_lang: "Bad language code",
  bad_date: "Bad date",
  bad_number: "Bad number",
  bad_filter: "Bad filter",
  bad_hashtag: "Bad hashtag",
  bad_cashtag: "Bad cashtag",
} as const;

export type SearchSyntaxProblem = keyof typeof TITLES;

export class SearchSyntaxError extends Error {
  override readonly name = "SearchSyntaxError";
  readonly problem: SearchSyntaxProblem;
  /** 0-based UTF-16 index of the offending character; the query's length when the problem is its end. */
  readonly position: number;

  constructor(problem: SearchSyntaxProblem, position: number, detail: string) {
    super(`${TITLES[problem]} at position ${position}: ${detail}`);
    this.problem = problem;
    this.position = position;
  }
}

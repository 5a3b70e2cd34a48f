// How common each lexeme of the search vectors is, which decides what a search asks the GIN index and
// what it tests on the rows the index finds (./compile.ts): a lexeme in half the tweets costs the index
// hundreds of thousands of postings to read, a rare negated one saves reading every row that holds it.
//
// PostgreSQL keeps the share of tweets holding each of the commonest lexemes in its statistics
// (`pg_stats.most_common_elems` of search_vector, a few thousand lexemes from ANALYZE's sample); a lexeme
// it does not list is rarer than the least common it lists. A store reads them once a minute, in the
// background once known: a world rebuilt meanwhile makes some searches slower for that minute, never
// different. Statistics that cannot be read count as unknown for a minute: searches then ask the index
// as they would with no statistics.
import type { SQL } from "bun";

/** The share of tweets that hold `lexeme`, or undefined when the statistics say nothing yet. */
export type FrequencyOf = (lexeme: string) => number | undefined;

const MAX_AGE_MS = 60_000;

const unknown: FrequencyOf = () => undefined;

interface StatsRow {
  lexemes: string[] | null;
  freqs: number[] | null;
}

async function readFrequencies(sql: SQL): Promise<FrequencyOf> {
  const [row] = await sql<StatsRow[]>`
    SELECT most_common_elems::text::text[] AS lexemes, most_common_elem_freqs AS freqs FROM pg_stats
    WHERE schemaname = current_schema() AND tablename = 'tweets' AND attname = 'search_vector'`;
  const { lexemes, freqs } = row ?? { lexemes: null, freqs: null };
  if (lexemes === null || freqs === null) return unknown;
  const shares = new Map(lexemes.map((lexeme, index) => [lexeme, freqs[index] as number]));
  // After the lexemes' own: the least and the greatest of them.
  const least = freqs[lexemes.length] ?? 0;
  return (lexeme) => shares.get(lexeme) ?? least;
}

export class LexemeFrequencies {
  readonly #sql: SQL;
  #known: { at: number; frequencyOf: FrequencyOf } | undefined;
  #loading: Promise<FrequencyOf> | undefined;

  constructor(sql: SQL) {
    this.#sql = sql;
  }

  /** The frequencies: the first call waits for them, later ones get the last read while a newer one loads. */
  async current(): Promise<FrequencyOf> {
    const known = this.#known;
    if (known === undefined) return this.#load();
    if (performance.now() - known.at > MAX_AGE_MS) void this.#load();
    return known.frequencyOf;
  }

  /** Reads them again (once at a time); never fails: what cannot be read keeps what was known. */
  #load(): Promise<FrequencyOf> {
    this.#loading ??= readFrequencies(this.#sql)
      .catch(() => this.#known?.frequencyOf ?? unknown)
      .then((frequencyOf) => {
        this.#known = { at: performance.now(), frequencyOf };
        this.#loading = undefined;
        return frequencyOf;
      });
    return this.#loading;
  }
}

// Trends: the top trends of a place (a woeid) by rank.
import type { Database } from "bun:sqlite";
import type { Trend } from "@social/core";

function statements(db: Database) {
  return {
    trends: db.query<Trend, [woeid: string, limit: number]>(
      "SELECT woeid, rank, name, query, tweet_count FROM trends WHERE woeid = ? ORDER BY rank LIMIT ?",
    ),
    trendPlace: db.query<object, [string]>("SELECT 1 FROM trends WHERE woeid = ? LIMIT 1"),
  };
}

export class TrendReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database) {
    this.#q = statements(db);
  }

  /** Undefined for a place without trends: an unknown woeid. */
  trends(woeid: string, limit: number): Trend[] | undefined {
    const trends = this.#q.trends.all(woeid, limit);
    if (trends.length === 0 && this.#q.trendPlace.get(woeid) === null) return undefined;
    return trends;
  }
}

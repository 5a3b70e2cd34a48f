// Trends: the top trends of a place (a woeid) by rank.

import type { Trend } from "@social/core";
import type { SQL } from "bun";
import { statement } from "./reads.ts";

function statements(sql: SQL) {
  return {
    trends: statement<Trend, [woeid: string, limit: number]>(
      sql,
      "SELECT woeid, rank, name, query, tweet_count FROM trends WHERE woeid = $1 ORDER BY rank LIMIT $2",
    ),
    trendPlace: statement<object, [string]>(sql, "SELECT 1 FROM trends WHERE woeid = $1 LIMIT 1"),
  };
}

export class TrendReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(sql: SQL) {
    this.#q = statements(sql);
  }

  /** Undefined for a place without trends: an unknown woeid. */
  async trends(woeid: string, limit: number): Promise<Trend[] | undefined> {
    const trends = await this.#q.trends.all(woeid, limit);
    if (trends.length === 0 && (await this.#q.trendPlace.get(woeid)) === undefined) return undefined;
    return trends;
  }
}

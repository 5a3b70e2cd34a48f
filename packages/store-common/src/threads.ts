// What a self-thread is, for every adapter: from its start, each of the author's tweets in the
// conversation that replies to a tweet already in the chain joins it, in id order.
import type { Tweet } from "@social/core";
import { type TweetRowOf, tweetFromRow } from "./rows.ts";

/** A row of the chain, with the id it replies to as text, like its own. */
type ChainRow = TweetRowOf<number | string, number | boolean> & { reply_to_id: string | null };

/**
 * The chain from `start` among `rows` (the author's tweets of the conversation from `start` on, in id
 * order), at most `max` tweets; `longer` when another one followed.
 */
export function selfChain(rows: Iterable<ChainRow>, start: string, max: number): { tweets: Tweet[]; longer: boolean } {
  const chain = new Set<string>([start]);
  const tweets: Tweet[] = [];
  for (const row of rows) {
    if (row.id !== start && (row.reply_to_id === null || !chain.has(row.reply_to_id))) continue;
    if (tweets.length === max) return { tweets, longer: true };
    chain.add(row.id);
    tweets.push(tweetFromRow(row));
  }
  return { tweets, longer: false };
}

// Communities: lookup, search by words, members, moderators, and their tweets in three sort orders.

import {
  type Community,
  type CommunityTweetSort,
  type Page,
  type PageRequest,
  type TimeFilter,
  type Tweet,
  timeFilterStartMs,
  tokenize,
  type User,
} from "@social/core";
import {
  type BoundKey,
  boundId,
  CEILING,
  communityFromRow,
  idKey,
  keysetAfter,
  type StoredId,
  TWEET_COLUMNS,
  tweetFromRow,
} from "@social/store-common";
import type { SQL } from "bun";
import { type CommunityRow, type TweetRow, VISIBLE } from "../world/rows.ts";
import { pageOf, rowById, statement, type UserWalk, userPage, usersNewestFirst } from "./reads.ts";

type BySizeParams = [afterMemberCount: BoundKey, afterId: BoundKey, limit: number];

/** Communities that meet `where` (a condition followed by AND, or nothing), largest first. */
function communitiesBySize(where: string, first: number): string {
  return `SELECT CAST(c.id AS TEXT) AS id, c.name, c.description, c.member_count FROM communities c
       WHERE ${where} (c.member_count, c.id) < ($${first}::bigint, $${first + 1}::bigint)
       ORDER BY c.member_count DESC, c.id DESC LIMIT $${first + 2}`;
}

type SortedWalkParams = [community: StoredId, sinceMs: number, afterK1: BoundKey, afterK2: BoundKey, limit: number];

function statements(sql: SQL) {
  const communityTweetsBy = (key: string, type: string) =>
    statement<TweetRow & { k1: string | number }, SortedWalkParams>(
      sql,
      `SELECT ${TWEET_COLUMNS}, c.${key} AS k1 FROM community_tweets c JOIN tweets t ON t.id = c.tweet_id
       WHERE c.community_id = $1::bigint AND c.created_ms >= $2::bigint AND ${VISIBLE}
         AND (c.${key}, c.tweet_id) < ($3::${type}, $4::bigint)
       ORDER BY c.${key} DESC, c.tweet_id DESC LIMIT $5`,
    );
  return {
    community: statement<CommunityRow, [StoredId]>(
      sql,
      "SELECT CAST(id AS TEXT) AS id, name, description, member_count FROM communities WHERE id = $1::bigint",
    ),
    allCommunities: statement<CommunityRow, BySizeParams>(sql, communitiesBySize("", 1)),
    // $1: the words as a text[] literal.
    communitiesMatching: statement<CommunityRow, [words: string, ...BySizeParams]>(
      sql,
      communitiesBySize("c.search_tokens @> $1::text[] AND", 2),
    ),
    communityMembers: usersNewestFirst(sql, "community_members", "community_id", "user_id"),
    communityModerators: usersNewestFirst(
      sql,
      "community_members",
      "community_id",
      "user_id",
      " AND r.role = 'moderator'",
    ),
    communityTweets: {
      recency: statement<TweetRow, [community: StoredId, sinceMs: number, afterId: BoundKey, limit: number]>(
        sql,
        `SELECT ${TWEET_COLUMNS} FROM community_tweets c JOIN tweets t ON t.id = c.tweet_id
         WHERE c.community_id = $1::bigint AND c.created_ms >= $2::bigint AND ${VISIBLE} AND c.tweet_id < $3::bigint
         ORDER BY c.tweet_id DESC LIMIT $4`,
      ),
      likes: communityTweetsBy("like_count", "bigint"),
      relevance: communityTweetsBy("relevance", "float8"),
    },
    clock: statement<{ clock_ms: string }, []>(sql, "SELECT clock_ms FROM world_meta WHERE id = 1"),
  };
}

/** A text[] literal of search tokens, which are runs of letters, numbers, marks, # $ and _: nothing to escape. */
function textArray(words: readonly string[]): string {
  return `{${words.map((word) => `"${word}"`).join(",")}}`;
}

export class CommunityReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(sql: SQL) {
    this.#q = statements(sql);
  }

  async community(id: string): Promise<Community | undefined> {
    const row = await rowById(this.#q.community, id);
    return row === undefined ? undefined : communityFromRow(row);
  }

  async search(query: string, page: PageRequest): Promise<Page<Community>> {
    const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, ["int", "id"]);
    const words = tokenize(query);
    const rows =
      words.length === 0
        ? await this.#q.allCommunities.all(k1, k2, page.size + 1)
        : await this.#q.communitiesMatching.all(textArray(words), k1, k2, page.size + 1);
    return pageOf(rows, page.size, communityFromRow, (row) => [row.member_count, idKey(row.id)]);
  }

  members(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#users(this.#q.communityMembers, id, page);
  }

  moderators(id: string, page: PageRequest): Promise<Page<User> | undefined> {
    return this.#users(this.#q.communityModerators, id, page);
  }

  async tweets(
    id: string,
    sort: CommunityTweetSort,
    timeFilter: TimeFilter,
    page: PageRequest,
  ): Promise<Page<Tweet> | undefined> {
    const community = await rowById(this.#q.community, id);
    if (community === undefined) return undefined;
    const communityId = boundId(community.id);
    const since = timeFilter === "all" ? -CEILING : timeFilterStartMs(timeFilter, await this.#clockMs());
    const size = page.size;
    if (sort === "recency") {
      const [before] = keysetAfter<[BoundKey]>(page.after, ["id"]);
      const rows = await this.#q.communityTweets.recency.all(communityId, since, before, size + 1);
      return pageOf(rows, size, tweetFromRow, (row) => [idKey(row.id)]);
    }
    // Likes are counts (BIGINT, as text); relevance is a double.
    const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, [sort === "likes" ? "int" : "real", "id"]);
    const rows = await this.#q.communityTweets[sort].all(communityId, since, k1, k2, size + 1);
    return pageOf(rows, size, tweetFromRow, (row) => [Number(row.k1), idKey(row.id)]);
  }

  async #users(walk: UserWalk, communityId: string, page: PageRequest): Promise<Page<User> | undefined> {
    const community = await rowById(this.#q.community, communityId);
    return community === undefined ? undefined : userPage(walk, boundId(community.id), page);
  }

  async #clockMs(): Promise<number> {
    const meta = await this.#q.clock.get();
    if (meta === undefined) throw new Error("store: the database holds no world (build one first)");
    return Number(meta.clock_ms);
  }
}

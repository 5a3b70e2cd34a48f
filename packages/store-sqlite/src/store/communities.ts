// Communities: lookup, search by words, members, moderators, and their tweets in three sort orders.
import type { Database } from "bun:sqlite";
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
import { ftsString } from "../search/fts-columns.ts";
import { type CommunityRow, type TweetRow, VISIBLE } from "../world/rows.ts";
import { pageOf, rowById, type UserWalk, userPage, usersNewestFirst } from "./reads.ts";

type BySizeParams = [afterMemberCount: BoundKey, afterId: BoundKey, limit: number];

/** Communities that meet `where` (a condition followed by AND, or nothing), largest first. */
function communitiesBySize(where: string): string {
  return `SELECT CAST(c.id AS TEXT) AS id, c.name, c.description, c.member_count FROM communities c
       WHERE ${where} (c.member_count, c.id) < (?, ?) ORDER BY c.member_count DESC, c.id DESC LIMIT ?`;
}

function statements(db: Database) {
  const communityTweetsBy = (key: string) =>
    db.query<
      TweetRow & { k1: number },
      [community: StoredId, sinceMs: number, afterK1: BoundKey, afterK2: BoundKey, limit: number]
    >(
      `SELECT ${TWEET_COLUMNS}, c.${key} AS k1 FROM community_tweets c JOIN tweets t ON t.id = c.tweet_id
       WHERE c.community_id = ? AND c.created_ms >= ? AND ${VISIBLE} AND (c.${key}, c.tweet_id) < (?, ?)
       ORDER BY c.${key} DESC, c.tweet_id DESC LIMIT ?`,
    );
  return {
    community: db.query<CommunityRow, [StoredId]>(
      "SELECT CAST(id AS TEXT) AS id, name, description, member_count FROM communities WHERE id = ?",
    ),
    allCommunities: db.query<CommunityRow, BySizeParams>(communitiesBySize("")),
    communitiesMatching: db.query<CommunityRow, [match: string, ...BySizeParams]>(
      communitiesBySize("c.id IN (SELECT rowid FROM communities_fts WHERE communities_fts MATCH ?) AND"),
    ),
    communityMembers: usersNewestFirst(db, "community_members", "community_id", "user_id"),
    communityModerators: usersNewestFirst(
      db,
      "community_members",
      "community_id",
      "user_id",
      " AND r.role = 'moderator'",
    ),
    communityTweets: {
      recency: db.query<TweetRow, [community: StoredId, sinceMs: number, afterId: BoundKey, limit: number]>(
        `SELECT ${TWEET_COLUMNS} FROM community_tweets c JOIN tweets t ON t.id = c.tweet_id
         WHERE c.community_id = ? AND c.created_ms >= ? AND ${VISIBLE} AND c.tweet_id < ? ORDER BY c.tweet_id DESC LIMIT ?`,
      ),
      likes: communityTweetsBy("like_count"),
      relevance: communityTweetsBy("relevance"),
    },
    clock: db.query<{ clock_ms: number }, []>("SELECT clock_ms FROM world_meta WHERE id = 1"),
  };
}

export class CommunityReads {
  readonly #q: ReturnType<typeof statements>;

  constructor(db: Database) {
    this.#q = statements(db);
  }

  community(id: string): Community | undefined {
    const row = rowById(this.#q.community, id);
    return row === undefined ? undefined : communityFromRow(row);
  }

  search(query: string, page: PageRequest): Page<Community> {
    const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, ["int", "id"]);
    const words = tokenize(query);
    const rows =
      words.length === 0
        ? this.#q.allCommunities.all(k1, k2, page.size + 1)
        : this.#q.communitiesMatching.all(words.map(ftsString).join(" AND "), k1, k2, page.size + 1);
    return pageOf(rows, page.size, communityFromRow, (row) => [row.member_count, idKey(row.id)]);
  }

  members(id: string, page: PageRequest): Page<User> | undefined {
    return this.#users(this.#q.communityMembers, id, page);
  }

  moderators(id: string, page: PageRequest): Page<User> | undefined {
    return this.#users(this.#q.communityModerators, id, page);
  }

  tweets(id: string, sort: CommunityTweetSort, timeFilter: TimeFilter, page: PageRequest): Page<Tweet> | undefined {
    const community = rowById(this.#q.community, id);
    if (community === undefined) return undefined;
    const since = timeFilter === "all" ? -CEILING : timeFilterStartMs(timeFilter, this.#clockMs());
    const size = page.size;
    const communityId = boundId(community.id);
    if (sort === "recency") {
      const [before] = keysetAfter<[BoundKey]>(page.after, ["id"]);
      const rows = this.#q.communityTweets.recency.all(communityId, since, before, size + 1);
      return pageOf(rows, size, tweetFromRow, (row) => [idKey(row.id)]);
    }
    // Likes are counts; relevance is a double.
    const [k1, k2] = keysetAfter<[BoundKey, BoundKey]>(page.after, [sort === "likes" ? "int" : "real", "id"]);
    const rows = this.#q.communityTweets[sort].all(communityId, since, k1, k2, size + 1);
    return pageOf(rows, size, tweetFromRow, (row) => [row.k1, idKey(row.id)]);
  }

  #users(walk: UserWalk, communityId: string, page: PageRequest): Page<User> | undefined {
    const community = rowById(this.#q.community, communityId);
    return community === undefined ? undefined : userPage(walk, boundId(community.id), page);
  }

  #clockMs(): number {
    const meta = this.#q.clock.get();
    if (meta === null) throw new Error("store: the database holds no world (build one first)");
    return meta.clock_ms;
  }
}

// The social world's tables on PostgreSQL: the tables, columns and indexes of SQLite's world
// (packages/store-sqlite/src/world/schema.ts), so every paginated read walks one B-tree in its keyset
// order on both. Where PostgreSQL differs:
//
// - Ids and timestamps are BIGINT (Unix epoch milliseconds); Bun.sql reads them back as decimal strings,
//   which is already the model's form of an id.
// - Flags are BOOLEAN rather than 0/1 integers.
// - SQLite finds a username with COLLATE NOCASE, which folds ASCII letters only. `username_key` holds
//   that folding, made by the writer (see asciiFold), so the lookup means the same whatever the
//   database's locale would make of lower().
// - Community search matches the core's tokens of the name and description (`search_tokens`, a GIN
//   index) where SQLite uses an FTS5 table with the same tokenizer.
// - The documents (`doc`, `extra`) are TEXT, not JSONB: JSONB reorders keys, and the API writes these
//   objects out in the order they were generated.
// - Search reads `search_vector`, a tsvector of the core's tokens written by the writer (see
//   ../search/lexemes.ts), in a GIN index, where SQLite has an FTS5 table.
import type { Migration } from "../migrate.ts";

export const worldMigrations: readonly Migration[] = [
  async (tx) => {
    await tx`CREATE TABLE world_meta (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      seed TEXT NOT NULL,
      clock TEXT NOT NULL,
      clock_ms BIGINT NOT NULL,
      counts TEXT NOT NULL,
      ids_follow_time BOOLEAN NOT NULL
    )`;

    // doc: the User JSON without `status`, which is a column because User and UserLookup differ by it.
    await tx`CREATE TABLE users (
      id BIGINT PRIMARY KEY,
      username TEXT NOT NULL,
      username_key TEXT NOT NULL,
      status TEXT NOT NULL,
      doc TEXT NOT NULL
    )`;
    await tx`CREATE UNIQUE INDEX users_username ON users (username_key)`;

    // A protected account's tweets are for its followers, and this API reads as an app that follows
    // nobody: the author's protection is copied onto each tweet so that every read filters the row it
    // reads instead of joining users.
    await tx`CREATE TABLE tweets (
      id BIGINT PRIMARY KEY,
      author_id BIGINT NOT NULL,
      created_ms BIGINT NOT NULL,
      conversation_id BIGINT NOT NULL,
      lang TEXT NOT NULL,
      text TEXT NOT NULL,
      possibly_sensitive BOOLEAN NOT NULL,
      like_count INTEGER NOT NULL,
      retweet_count INTEGER NOT NULL,
      reply_count INTEGER NOT NULL,
      quote_count INTEGER NOT NULL,
      bookmark_count INTEGER NOT NULL,
      is_quote_status BOOLEAN NOT NULL,
      is_reply BOOLEAN NOT NULL,
      has_media BOOLEAN NOT NULL,
      has_links BOOLEAN NOT NULL,
      reply_to_id BIGINT,
      quoted_id BIGINT,
      retweeted_id BIGINT,
      extra TEXT NOT NULL,
      author_protected BOOLEAN NOT NULL,
      search_vector TSVECTOR NOT NULL
    )`;
    await tx`CREATE INDEX tweets_author ON tweets (author_id, id)`;
    await tx`CREATE INDEX tweets_author_originals ON tweets (author_id, id) WHERE NOT is_reply`;
    await tx`CREATE INDEX tweets_author_media ON tweets (author_id, id) WHERE has_media`;
    await tx`CREATE INDEX tweets_replies ON tweets (reply_to_id, id) WHERE reply_to_id IS NOT NULL`;
    await tx`CREATE INDEX tweets_quotes ON tweets (quoted_id, id) WHERE quoted_id IS NOT NULL`;
    await tx`CREATE INDEX tweets_retweets ON tweets (retweeted_id, id) WHERE retweeted_id IS NOT NULL`;
    await tx`CREATE INDEX tweets_conversation ON tweets (conversation_id, id)`;
    // (created_ms, id): search finds the first tweet of a day here, to turn since:/until: into ids.
    await tx`CREATE INDEX tweets_created ON tweets (created_ms, id)`;
    await tx`CREATE INDEX tweets_search ON tweets USING GIN (search_vector)`;
    // min_faves: and min_retweets: gather their few matches here when a search's walk finds none.
    await tx`CREATE INDEX tweets_likes ON tweets (like_count)`;
    await tx`CREATE INDEX tweets_retweet_count ON tweets (retweet_count)`;
    // The planner chooses between the GIN index and a newest-first walk of the primary key by how common
    // it thinks the lexemes are. With the default statistics a rare lexeme (one author's, a rare word) is
    // guessed at about a thousand tweets, and the walk it picks then crosses the whole world.
    await tx`ALTER TABLE tweets ALTER COLUMN search_vector SET STATISTICS 1000`;

    // Both sides' verified flags are copied here so that verified-only pages walk a partial index. The
    // key is follower-first because the generator emits follows grouped by follower.
    await tx`CREATE TABLE follows (
      follower_id BIGINT NOT NULL,
      created_ms BIGINT NOT NULL,
      followee_id BIGINT NOT NULL,
      follower_verified BOOLEAN NOT NULL,
      followee_verified BOOLEAN NOT NULL,
      PRIMARY KEY (follower_id, created_ms, followee_id)
    )`;
    await tx`CREATE INDEX follows_followers ON follows (followee_id, created_ms, follower_id)`;
    await tx`CREATE INDEX follows_verified_followers ON follows (followee_id, created_ms, follower_id)
             WHERE follower_verified`;
    await tx`CREATE INDEX follows_verified_following ON follows (follower_id, created_ms, followee_id)
             WHERE followee_verified`;

    await tx`CREATE TABLE lists (
      id BIGINT PRIMARY KEY,
      owner_id BIGINT NOT NULL,
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      created_ms BIGINT NOT NULL
    )`;
    for (const table of ["list_members", "list_subscribers"]) {
      await tx`CREATE TABLE ${tx(table)} (
        list_id BIGINT NOT NULL,
        created_ms BIGINT NOT NULL,
        user_id BIGINT NOT NULL,
        PRIMARY KEY (list_id, created_ms, user_id)
      )`;
    }

    await tx`CREATE TABLE communities (
      id BIGINT PRIMARY KEY,
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      member_count INTEGER NOT NULL,
      created_ms BIGINT NOT NULL,
      search_tokens TEXT[] NOT NULL
    )`;
    await tx`CREATE INDEX communities_size ON communities (member_count, id)`;
    await tx`CREATE INDEX communities_search ON communities USING GIN (search_tokens)`;
    await tx`CREATE TABLE community_members (
      community_id BIGINT NOT NULL,
      created_ms BIGINT NOT NULL,
      user_id BIGINT NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('member', 'moderator')),
      PRIMARY KEY (community_id, created_ms, user_id)
    )`;
    await tx`CREATE INDEX community_moderators ON community_members (community_id, created_ms, user_id)
             WHERE role = 'moderator'`;
    // relevance is fixed at build time: it weighs likes and retweets by age against the world's clock,
    // which does not move.
    await tx`CREATE TABLE community_tweets (
      community_id BIGINT NOT NULL,
      tweet_id BIGINT NOT NULL,
      created_ms BIGINT NOT NULL,
      like_count BIGINT NOT NULL,
      relevance DOUBLE PRECISION NOT NULL,
      PRIMARY KEY (community_id, tweet_id)
    )`;
    await tx`CREATE INDEX community_tweets_likes ON community_tweets (community_id, like_count, tweet_id, created_ms)`;
    await tx`CREATE INDEX community_tweets_relevance ON community_tweets (community_id, relevance, tweet_id, created_ms)`;

    await tx`CREATE TABLE trends (
      woeid TEXT NOT NULL,
      rank INTEGER NOT NULL,
      name TEXT NOT NULL,
      query TEXT NOT NULL,
      tweet_count INTEGER NOT NULL,
      PRIMARY KEY (woeid, rank)
    )`;

    // doc: the Article JSON without `author`, which is joined from users when read.
    await tx`CREATE TABLE articles (
      tweet_id BIGINT PRIMARY KEY,
      author_id BIGINT NOT NULL,
      doc TEXT NOT NULL
    )`;
  },
  // X's is:, has:, conversation_id: and to: operators (#19) search tags beyond links and replies
  // (searchTags in @social/store-common): a world built before them gets the lexemes a build now writes.
  async (tx) => {
    await tx`UPDATE tweets t SET search_vector = t.search_vector || array_to_tsvector(array_remove(ARRAY[
        CASE WHEN t.retweeted_id IS NOT NULL THEN 'filter:retweets' END,
        CASE WHEN t.is_quote_status THEN 'filter:quotes' END,
        CASE WHEN t.has_media THEN 'filter:media' END,
        CASE WHEN json_array_length(t.extra::json -> 'entities' -> 'hashtags') > 0 THEN 'filter:hashtags' END,
        CASE WHEN json_array_length(t.extra::json -> 'entities' -> 'mentions') > 0 THEN 'filter:mentions' END,
        CASE WHEN (u.doc::json ->> 'verified')::boolean THEN 'filter:verified' END,
        'filter:c' || t.conversation_id,
        (SELECT 'filter:t' || lower(r.username) FROM users r
          WHERE r.id = (t.extra::json ->> 'in_reply_to_user_id')::bigint)
      ], NULL))
      FROM users u WHERE u.id = t.author_id`;
  },
  // Imports (#21), as on SQLite: a tweet's versions, and where the world came from with what the demo
  // shows of an imported one.
  async (tx) => {
    await tx`ALTER TABLE tweets ADD COLUMN versions INTEGER NOT NULL DEFAULT 1`;
    await tx`ALTER TABLE world_meta ADD COLUMN origin TEXT NOT NULL DEFAULT 'generated'`;
    await tx`ALTER TABLE world_meta ADD COLUMN showcase TEXT`;
  },
  // The spans of hours each tweet was created in, as lexemes (search/hours.ts): a world built before gets
  // the lexemes a build now writes (the spans are those of TIME_SPANS then). Every row is rewritten,
  // once, in time that grows with the world, which leaves the indexes twice their size and their scans
  // slower until they are rebuilt.
  async (tx) => {
    await tx`UPDATE tweets SET search_vector = search_vector || array_to_tsvector(ARRAY(
      SELECT 'time' || span || 'h:' || floor(created_ms / (3600000.0 * span))::bigint
      FROM unnest(ARRAY[1, 4, 16, 64, 256]) AS span))`;
    await tx`REINDEX TABLE tweets`;
  },
  // The mentions timeline (#36), as on SQLite: which tweets name a user by id (@social/store-common
  // mentions.ts), and for a world stored before, the rows its tweets' mentions give (indexed once they
  // are in, which is cheaper than growing the index row by row).
  async (tx) => {
    await tx`CREATE TABLE tweet_mentions (
      tweet_id BIGINT NOT NULL,
      user_id BIGINT NOT NULL,
      PRIMARY KEY (tweet_id, user_id)
    )`;
    await tx`INSERT INTO tweet_mentions (tweet_id, user_id)
      SELECT DISTINCT t.id, (m.mention ->> 'id')::bigint
      FROM tweets t, json_array_elements(t.extra::json -> 'entities' -> 'mentions') AS m(mention)
      WHERE m.mention ->> 'id' IS NOT NULL`;
    await tx`CREATE INDEX tweet_mentions_user ON tweet_mentions (user_id, tweet_id)`;
  },
  // Users imported after the posts that name them (#36), as on SQLite: replies indexed by the user they
  // reply to, for the to: terms an import or a removal changes, and the mentions given by username alone
  // kept by folded username, for the ids an import gives them; a world stored before gets its rows.
  async (tx) => {
    await tx`CREATE INDEX tweets_reply_to_user ON tweets ((extra::json ->> 'in_reply_to_user_id')) WHERE is_reply`;
    await tx`CREATE TABLE tweet_mention_names (
      tweet_id BIGINT NOT NULL,
      username_key TEXT NOT NULL,
      PRIMARY KEY (tweet_id, username_key)
    )`;
    await tx`INSERT INTO tweet_mention_names (tweet_id, username_key)
      SELECT DISTINCT t.id, lower(m.mention ->> 'username')
      FROM tweets t, json_array_elements(t.extra::json -> 'entities' -> 'mentions') AS m(mention)
      WHERE m.mention ->> 'id' IS NULL`;
    await tx`CREATE INDEX tweet_mention_names_username ON tweet_mention_names (username_key, tweet_id)`;
  },
  // Live ingestion (#38), as on SQLite: where the import of each followed file stands.
  async (tx) => {
    await tx`CREATE TABLE import_positions (
      path TEXT PRIMARY KEY,
      device TEXT NOT NULL,
      inode TEXT NOT NULL,
      byte_offset BIGINT NOT NULL,
      line BIGINT NOT NULL
    )`;
  },
];

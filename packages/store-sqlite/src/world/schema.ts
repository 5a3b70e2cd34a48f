// The social world's tables. The world is read-only once built, so the schema is shaped for reads:
// every paginated read walks one index in its keyset order, and relations that the generator expresses
// inside a tweet (reply, quote, retweet, media, links) become indexed columns.
//
// - Ids are INTEGER (int64), so rowid order is id order and keyset comparisons are numeric; X's ids
//   pass 2^53, so they are bound as bigints and read as text (see @social/store-common ids.ts).
//   Timestamps are Unix epoch milliseconds.
// - No foreign keys: the generator only refers to records emitted earlier, and checking each reference
//   would slow the bulk build for nothing at read time.
// - The search index `tweets_fts` is external-content over the view `tweet_search_content`; the writer
//   fills it with explicit inserts (see ../search/fts-columns.ts for what each column holds). It keeps
//   its per-row token counts (columnsize=1, a little disk per tweet): bm25 needs them for every match it
//   ranks, and without them FTS5 reads and re-tokenizes each ranked row through the view, far more work
//   than reading its stored counts.
import type { Migration } from "../migrate.ts";

/** The FTS5 tokenizer of the search language (see @social/core search/ast.ts). */
export const SEARCH_TOKENIZER = "unicode61 remove_diacritics 2 tokenchars '#$_'";

/**
 * A protected account's tweets are visible only to its followers, and this API reads as an app that
 * follows nobody. Protection belongs to the user, but it is copied onto each tweet so that every tweet
 * read filters the row it already reads instead of joining users. The search index and its content
 * view leave those tweets out, so full-text matches never see them and the index still agrees with
 * its content ('integrity-check', 'rebuild').
 */
const hideProtectedAuthors: Migration = (db) => {
  db.run("ALTER TABLE tweets ADD COLUMN author_protected INTEGER NOT NULL DEFAULT 0");
  db.run(`UPDATE tweets SET author_protected = 1
    WHERE author_id IN (SELECT id FROM users WHERE json_extract(doc, '$.protected'))`);
  // An external-content index forgets a row only when given the values it indexed, which the view
  // still yields until it is redefined below.
  db.run(`INSERT INTO tweets_fts (tweets_fts, rowid, text, author, lang, flags)
    SELECT 'delete', c.id, c.text, c.author, c.lang, c.flags
    FROM tweet_search_content c JOIN tweets t ON t.id = c.id WHERE t.author_protected = 1`);
  db.run("DROP VIEW tweet_search_content");
  db.run(`CREATE VIEW tweet_search_content AS
    SELECT t.id, t.text, lower(u.username) AS author, t.lang_token AS lang, t.flags
    FROM (SELECT id, text, author_id, 'l' || hex(lower(lang)) AS lang_token,
            trim(iif(has_links, 'links ', '') || iif(is_reply, 'replies', '')) AS flags
          FROM tweets WHERE author_protected = 0) t
    JOIN users u ON u.id = t.author_id`);
};

/**
 * The search tags of @social/store-common's searchTags, in its order, computed from the columns the writer
 * fills: the view must yield exactly what the writer indexed, or the index could not forget a row.
 */
const SEARCH_TAGS = `trim(
    iif(t.has_links, 'links ', '') || iif(t.is_reply, 'replies ', '') ||
    iif(t.retweeted_id IS NOT NULL, 'retweets ', '') || iif(t.is_quote_status, 'quotes ', '') ||
    iif(t.has_media, 'media ', '') ||
    iif(json_array_length(t.extra, '$.entities.hashtags') > 0, 'hashtags ', '') ||
    iif(json_array_length(t.extra, '$.entities.mentions') > 0, 'mentions ', '') ||
    iif(json_extract(u.doc, '$.verified'), 'verified ', '') ||
    'c' || t.conversation_id || coalesce(' t' || lower(r.username), ''))`;

/**
 * X's is:, has:, conversation_id: and to: operators (#19) search tags beyond links and replies: the view
 * yields them all, and the index is rebuilt from it once.
 */
const indexSearchTags: Migration = (db) => {
  db.run("DROP VIEW tweet_search_content");
  db.run(`CREATE VIEW tweet_search_content AS
    SELECT t.id, t.text, lower(u.username) AS author, 'l' || hex(lower(t.lang)) AS lang, ${SEARCH_TAGS} AS flags
    FROM tweets t JOIN users u ON u.id = t.author_id
    LEFT JOIN users r ON r.id = CAST(json_extract(t.extra, '$.in_reply_to_user_id') AS INTEGER)
    WHERE t.author_protected = 0`);
  db.run("INSERT INTO tweets_fts (tweets_fts) VALUES ('rebuild')");
};

/**
 * Imports (#21): a tweet keeps how many versions its edit history names, so that a later copy of an
 * edited post replaces it; the world says whether the generator built it or it holds only what was
 * imported, and for the latter what the demo shows of it (see @social/store-common imported-world.ts).
 */
const importWorlds: Migration = (db) => {
  db.run("ALTER TABLE tweets ADD COLUMN versions INTEGER NOT NULL DEFAULT 1");
  db.run("ALTER TABLE world_meta ADD COLUMN origin TEXT NOT NULL DEFAULT 'generated'");
  db.run("ALTER TABLE world_meta ADD COLUMN showcase TEXT");
};

/**
 * The mentions timeline (#36): which tweets name a user by id (@social/store-common mentions.ts), keyed
 * in the order a build writes tweets, with the index a timeline walks. A world stored before gets the rows
 * its tweets' mentions give, as tweetMentions derives them.
 */
const indexMentions: Migration = (db) => {
  db.run(`CREATE TABLE tweet_mentions (
    tweet_id INTEGER NOT NULL,
    user_id INTEGER NOT NULL,
    PRIMARY KEY (tweet_id, user_id)
  ) WITHOUT ROWID`);
  db.run(`INSERT OR IGNORE INTO tweet_mentions (tweet_id, user_id)
    SELECT t.id, CAST(json_extract(m.value, '$.id') AS INTEGER)
    FROM tweets t, json_each(t.extra, '$.entities.mentions') m
    WHERE json_extract(m.value, '$.id') IS NOT NULL`);
  db.run("CREATE INDEX tweet_mentions_user ON tweet_mentions (user_id, tweet_id)");
};

/**
 * Users imported after the posts that name them (#36). Replies are indexed by the user they reply to,
 * so that an import re-tags the replies to a user it adds or renames, and a removal those to a user it
 * removes, without reading every reply. The mentions a post gives by username alone are kept by folded
 * username (@social/store-common mentions.ts), so that an import finds the posts to give a user's id
 * once the user arrives; a world stored before gets the rows its tweets' mentions give.
 */
const indexLateArrivals: Migration = (db) => {
  db.run(`CREATE INDEX tweets_reply_to_user ON tweets (CAST(json_extract(extra, '$.in_reply_to_user_id') AS INTEGER))
    WHERE is_reply = 1`);
  db.run(`CREATE TABLE tweet_mention_names (
    tweet_id INTEGER NOT NULL,
    username_key TEXT NOT NULL,
    PRIMARY KEY (tweet_id, username_key)
  ) WITHOUT ROWID`);
  db.run(`INSERT OR IGNORE INTO tweet_mention_names (tweet_id, username_key)
    SELECT t.id, lower(json_extract(m.value, '$.username'))
    FROM tweets t, json_each(t.extra, '$.entities.mentions') m
    WHERE json_extract(m.value, '$.id') IS NULL`);
  db.run("CREATE INDEX tweet_mention_names_username ON tweet_mention_names (username_key, tweet_id)");
};

/**
 * A world imported before late arrivals were handled (#36) may hold replies indexed without the `to:`
 * term its content view now yields for them, an index that cannot forget such a row when it changes. A
 * world made by imports is indexed anew from its view, once; a generated world's users always came
 * before their replies.
 */
export const reindexImportedWorld: Migration = (db) => {
  const meta = db.query<{ origin: string }, []>("SELECT origin FROM world_meta WHERE id = 1").get();
  if (meta?.origin === "imported") db.run("INSERT INTO tweets_fts (tweets_fts) VALUES ('rebuild')");
};

/** Live ingestion (#38): where the import of each followed file stands (./follow-position.ts). */
const followImports: Migration = (db) => {
  db.run(`CREATE TABLE import_positions (
    path TEXT PRIMARY KEY,
    device TEXT NOT NULL,
    inode TEXT NOT NULL,
    byte_offset INTEGER NOT NULL,
    line INTEGER NOT NULL
  )`);
};

/**
 * The posts an import added that wait for the monitors' matcher (#38), written in the import's own
 * transaction and so in the world's file. IF NOT EXISTS: the monitors' first migration made the table
 * in databases that kept the ledger in the world's file.
 */
const monitorArrivals: Migration = (db) => {
  // AUTOINCREMENT: a seq is never reused once its arrival is removed, so a matcher that read an
  // arrival removes that one and never a later arrival given its seq.
  db.run(
    "CREATE TABLE IF NOT EXISTS monitor_arrivals (seq INTEGER PRIMARY KEY AUTOINCREMENT, tweet_id INTEGER NOT NULL)",
  );
};

export const worldMigrations: readonly Migration[] = [
  (db) => {
    db.run(`CREATE TABLE world_meta (
      id INTEGER PRIMARY KEY CHECK (id = 1),
      seed TEXT NOT NULL,
      clock TEXT NOT NULL,
      clock_ms INTEGER NOT NULL,
      counts TEXT NOT NULL,
      ids_follow_time INTEGER NOT NULL
    )`);

    // doc: the User JSON without `status`, which is a column because User and UserLookup differ by it.
    db.run(`CREATE TABLE users (
      id INTEGER PRIMARY KEY,
      username TEXT NOT NULL,
      status TEXT NOT NULL,
      doc TEXT NOT NULL
    )`);
    db.run("CREATE UNIQUE INDEX users_username ON users (username COLLATE NOCASE)");

    // Scalars are columns; `extra` holds the JSON of entities and the optional fields, as given.
    // reply_to_id / quoted_id / retweeted_id come from referenced_tweets.
    db.run(`CREATE TABLE tweets (
      id INTEGER PRIMARY KEY,
      author_id INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      conversation_id INTEGER NOT NULL,
      lang TEXT NOT NULL,
      text TEXT NOT NULL,
      possibly_sensitive INTEGER NOT NULL,
      like_count INTEGER NOT NULL,
      retweet_count INTEGER NOT NULL,
      reply_count INTEGER NOT NULL,
      quote_count INTEGER NOT NULL,
      bookmark_count INTEGER NOT NULL,
      is_quote_status INTEGER NOT NULL,
      is_reply INTEGER NOT NULL,
      has_media INTEGER NOT NULL,
      has_links INTEGER NOT NULL,
      reply_to_id INTEGER,
      quoted_id INTEGER,
      retweeted_id INTEGER,
      extra TEXT NOT NULL
    )`);
    db.run("CREATE INDEX tweets_author ON tweets (author_id, id)");
    db.run("CREATE INDEX tweets_author_originals ON tweets (author_id, id) WHERE is_reply = 0");
    db.run("CREATE INDEX tweets_author_media ON tweets (author_id, id) WHERE has_media = 1");
    db.run("CREATE INDEX tweets_replies ON tweets (reply_to_id, id) WHERE reply_to_id IS NOT NULL");
    db.run("CREATE INDEX tweets_quotes ON tweets (quoted_id, id) WHERE quoted_id IS NOT NULL");
    db.run("CREATE INDEX tweets_retweets ON tweets (retweeted_id, id) WHERE retweeted_id IS NOT NULL");
    db.run("CREATE INDEX tweets_conversation ON tweets (conversation_id, id)");
    // Turns since: / until: into id bounds when ids follow creation time (world_meta.ids_follow_time).
    db.run("CREATE INDEX tweets_created ON tweets (created_ms)");

    db.run(`CREATE VIEW tweet_search_content AS
      SELECT t.id, t.text, lower(u.username) AS author, t.lang_token AS lang, t.flags
      FROM (SELECT id, text, author_id, 'l' || hex(lower(lang)) AS lang_token,
              trim(iif(has_links, 'links ', '') || iif(is_reply, 'replies', '')) AS flags FROM tweets) t
      JOIN users u ON u.id = t.author_id`);
    db.run(`CREATE VIRTUAL TABLE tweets_fts USING fts5 (
      text, author, lang, flags,
      content = 'tweet_search_content', content_rowid = 'id',
      tokenize = "${SEARCH_TOKENIZER}"
    )`);
    // FTS5 writes its pending terms out as a new segment whenever they outgrow this buffer (1 MB by
    // default); a larger one means fewer, larger segments and less merging while a world is built.
    db.run("INSERT INTO tweets_fts (tweets_fts, rank) VALUES ('hashsize', 67108864)");

    // The follower's and followee's verified flags are copied here so that verified-only pages walk a
    // partial index instead of filtering every follower. The key is follower-first because the
    // generator emits follows grouped by follower, so the build appends instead of inserting at random.
    db.run(`CREATE TABLE follows (
      follower_id INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      followee_id INTEGER NOT NULL,
      follower_verified INTEGER NOT NULL,
      followee_verified INTEGER NOT NULL,
      PRIMARY KEY (follower_id, created_ms, followee_id)
    ) WITHOUT ROWID`);
    db.run("CREATE INDEX follows_followers ON follows (followee_id, created_ms, follower_id)");
    db.run(
      "CREATE INDEX follows_verified_followers ON follows (followee_id, created_ms, follower_id) WHERE follower_verified = 1",
    );
    db.run(
      "CREATE INDEX follows_verified_following ON follows (follower_id, created_ms, followee_id) WHERE followee_verified = 1",
    );

    db.run(`CREATE TABLE lists (
      id INTEGER PRIMARY KEY,
      owner_id INTEGER NOT NULL,
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      created_ms INTEGER NOT NULL
    )`);
    for (const table of ["list_members", "list_subscribers"]) {
      db.run(`CREATE TABLE ${table} (
        list_id INTEGER NOT NULL,
        created_ms INTEGER NOT NULL,
        user_id INTEGER NOT NULL,
        PRIMARY KEY (list_id, created_ms, user_id)
      ) WITHOUT ROWID`);
    }

    db.run(`CREATE TABLE communities (
      id INTEGER PRIMARY KEY,
      name TEXT NOT NULL,
      description TEXT NOT NULL,
      member_count INTEGER NOT NULL,
      created_ms INTEGER NOT NULL
    )`);
    db.run("CREATE INDEX communities_size ON communities (member_count, id)");
    db.run(`CREATE VIRTUAL TABLE communities_fts USING fts5 (
      name, description, content = 'communities', content_rowid = 'id', columnsize = 0,
      tokenize = "${SEARCH_TOKENIZER}"
    )`);
    db.run(`CREATE TABLE community_members (
      community_id INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      user_id INTEGER NOT NULL,
      role TEXT NOT NULL CHECK (role IN ('member', 'moderator')),
      PRIMARY KEY (community_id, created_ms, user_id)
    ) WITHOUT ROWID`);
    db.run(
      "CREATE INDEX community_moderators ON community_members (community_id, created_ms, user_id) WHERE role = 'moderator'",
    );
    // relevance is fixed at build time: it weighs likes and retweets by age against the world's clock,
    // which does not move.
    db.run(`CREATE TABLE community_tweets (
      community_id INTEGER NOT NULL,
      tweet_id INTEGER NOT NULL,
      created_ms INTEGER NOT NULL,
      like_count INTEGER NOT NULL,
      relevance REAL NOT NULL,
      PRIMARY KEY (community_id, tweet_id)
    ) WITHOUT ROWID`);
    db.run("CREATE INDEX community_tweets_likes ON community_tweets (community_id, like_count, tweet_id, created_ms)");
    db.run(
      "CREATE INDEX community_tweets_relevance ON community_tweets (community_id, relevance, tweet_id, created_ms)",
    );

    db.run(`CREATE TABLE trends (
      woeid TEXT NOT NULL,
      rank INTEGER NOT NULL,
      name TEXT NOT NULL,
      query TEXT NOT NULL,
      tweet_count INTEGER NOT NULL,
      PRIMARY KEY (woeid, rank)
    ) WITHOUT ROWID`);

    // doc: the Article JSON without `author`, which is joined from users when read.
    db.run(`CREATE TABLE articles (
      tweet_id INTEGER PRIMARY KEY,
      author_id INTEGER NOT NULL,
      doc TEXT NOT NULL
    )`);
  },
  hideProtectedAuthors,
  indexSearchTags,
  importWorlds,
  indexMentions,
  indexLateArrivals,
  reindexImportedWorld,
  followImports,
  monitorArrivals,
];

/** The search tables, which a rebuild clears apart from the world's tables (WORLD_TABLES in @social/store-common). */
export const WORLD_FTS_TABLES = ["tweets_fts", "communities_fts"] as const;

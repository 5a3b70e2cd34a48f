// The search-operator language of SPEC.md as data. The parser produces it, the reference matcher
// interprets it, and each store compiles it. The meaning of every node is fixed here, once:
//
// - Text is compared token by token. A token is a maximal run of Unicode letters, numbers, combining
//   marks and the characters `#`, `$` and `_`, compared case-insensitively with diacritics removed
//   (see ./text.ts). This is what SQLite FTS5's `unicode61 remove_diacritics 2 tokenchars '#$_'`
//   tokenizer does, so a store can index with it.
// - `term`: the tweet's text holds the token. `#ai` and `ai` are different tokens, so a bare word does
//   not match a hashtag (the `hashtag` node does).
// - `phrase`: the phrase's tokens occur consecutively in the text. A phrase with no token is refused by
//   the parser.
// - `hashtag` / `cashtag`: the text holds the token `#value` / `$value`.
// - `from`: the author's username, case-insensitively.
// - `lang`: the tweet's language code, case-insensitively.
// - `since`: created at or after 00:00:00.000Z of that day, or at or after that instant when the value
//   is a timestamp. `until`: created before it (exclusive, as X search does).
// - `min_faves` / `min_retweets`: like_count / retweet_count at least `count`.
// - `filter` links: the tweet has at least one URL entity. replies: the tweet is a reply (it has
//   in_reply_to_user_id). retweets: it retweets another (referenced_tweets holds a retweeted one).
//   quotes: it quotes another (is_quote_status). media: it carries media. hashtags / mentions: its
//   entities hold at least one hashtag / mention. verified: its author is verified. X's is:retweet,
//   is:reply, is:quote, is:verified, has:links, has:media, has:hashtags and has:mentions are these.
// - `conversation`: the tweet belongs to the conversation of that id (conversation_id:).
// - `to`: the tweet replies to the user of that username, case-insensitively (to:).
// - `since_id` / `until_id`: the tweet's id is greater / smaller than the value, compared as numbers
//   (both exclusive, as X's since_id and until_id are).
// - `and` / `or` have two or more children and are flattened (no `and` directly inside `and`);
//   `not` negates its child. A query may consist of negations only: it matches everything else.

export const FILTER_NAMES = [
  "links",
  "replies",
  "retweets",
  "quotes",
  "media",
  "hashtags",
  "mentions",
  "verified",
  // Promoted-only posts, which no world here holds: is:nullcast matches nothing, and -is:nullcast, a
  // common clause in queries written for X, everything.
  "nullcast",
] as const;
export type FilterName = (typeof FILTER_NAMES)[number];

export type SearchNode =
  | { kind: "and"; children: SearchNode[] }
  | { kind: "or"; children: SearchNode[] }
  | { kind: "not"; child: SearchNode }
  | { kind: "term"; value: string }
  | { kind: "phrase"; value: string }
  | { kind: "hashtag"; value: string }
  | { kind: "cashtag"; value: string }
  | { kind: "from"; username: string }
  | { kind: "lang"; code: string }
  | { kind: "since"; date: string }
  | { kind: "until"; date: string }
  | { kind: "min_faves"; count: number }
  | { kind: "min_retweets"; count: number }
  | { kind: "filter"; filter: FilterName }
  | { kind: "conversation"; id: string }
  | { kind: "to"; username: string }
  | { kind: "since_id"; id: string }
  | { kind: "until_id"; id: string };

/** What the reference matcher needs to know about a tweet beyond the Tweet object itself. */
export interface SearchDocument {
  text: string;
  authorUsername: string;
  lang: string;
  createdAt: string;
  likeCount: number;
  retweetCount: number;
  hasLinks: boolean;
  isReply: boolean;
  isRetweet: boolean;
  isQuote: boolean;
  hasMedia: boolean;
  hasHashtags: boolean;
  hasMentions: boolean;
  authorVerified: boolean;
  id: string;
  conversationId: string;
  /** The username of the user the tweet replies to, when it is a reply to a known user. */
  replyToUsername?: string;
}

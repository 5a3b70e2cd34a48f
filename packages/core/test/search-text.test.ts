import assert from "node:assert/strict";
import { describe, it } from "node:test";
import fc from "fast-check";
import type { Tweet } from "../src/model.ts";
import { searchDocument, tokenize } from "../src/search/text.ts";

describe("tokenize", () => {
  // Each expectation is what SQLite 3.54 FTS5 `unicode61 remove_diacritics 2 tokenchars '#$_'` produced
  // for the same text, so the matcher and the store agree.
  const cases: [string, string[]][] = [
    ["Café #AI $TSLA foo_bar a#b", ["cafe", "#ai", "$tsla", "foo_bar", "a#b"]],
    ["e\u0301x naïve", ["ex", "naive"]],
    ["x\u0300\u0301y", ["xy"]],
    ["\u0301 lone", ["lone"]],
    ["a'b don't", ["a", "b", "don", "t"]],
    ["İstanbul", ["istanbul"]],
    ["ΑΣ ας Σ", ["ασ", "ασ", "σ"]],
    ["한국어", ["한국어"]],
    ["ö ø æ œ ł đ straße", ["o", "ø", "æ", "œ", "ł", "đ", "straße"]],
    ["١٢٣ ½ Ⅻ ⓐ", ["١٢٣", "½", "ⅻ"]],
    ["Hello, WORLD!! https://t.co/x", ["hello", "world", "https", "t", "co", "x"]],
    ["", []],
    ["  !!! ... ", []],
  ];
  for (const [text, tokens] of cases) {
    it(`tokenizes ${JSON.stringify(text)}`, () => assert.deepEqual(tokenize(text), tokens));
  }

  it("is idempotent: its tokens tokenize to themselves", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        const tokens = tokenize(text);
        assert.deepEqual(tokenize(tokens.join(" ")), tokens);
      }),
    );
  });
});

describe("searchDocument", () => {
  const tweet: Tweet = {
    id: "1",
    text: "Hello #AI",
    author_id: "7",
    created_at: "2025-03-01T12:00:00.000Z",
    lang: "en",
    conversation_id: "1",
    possibly_sensitive: false,
    like_count: 5,
    retweet_count: 2,
    reply_count: 0,
    quote_count: 0,
    bookmark_count: 0,
    is_quote_status: false,
    entities: { hashtags: [{ start: 6, end: 9, tag: "AI" }], urls: [], mentions: [] },
  };

  it("copies the fields the matcher reads", () => {
    assert.deepEqual(searchDocument(tweet, { author: { username: "Alice", verified: true } }), {
      text: "Hello #AI",
      authorUsername: "Alice",
      lang: "en",
      createdAt: "2025-03-01T12:00:00.000Z",
      likeCount: 5,
      retweetCount: 2,
      hasLinks: false,
      isReply: false,
      isRetweet: false,
      isQuote: false,
      hasMedia: false,
      hasHashtags: true,
      hasMentions: false,
      authorVerified: true,
      id: tweet.id,
      conversationId: tweet.conversation_id,
    });
  });

  it("has links, is a reply, a retweet and has media as the tweet says, and names the user replied to", () => {
    const url = {
      start: 0,
      end: 5,
      url: "https://t.co/x",
      expanded_url: "https://example.com/",
      display_url: "example.com",
    };
    const doc = searchDocument(
      {
        ...tweet,
        entities: { ...tweet.entities, urls: [url] },
        in_reply_to_user_id: "9",
        referenced_tweets: [{ type: "retweeted", id: "8" }],
        media: [{ type: "photo", url: "https://example.com/p.jpg" }],
      },
      { author: { username: "alice", verified: false }, replyToUsername: "bob" },
    );
    assert.equal(doc.hasLinks, true);
    assert.equal(doc.isReply, true);
    assert.equal(doc.isRetweet, true);
    assert.equal(doc.hasMedia, true);
    assert.equal(doc.replyToUsername, "bob");
  });
});

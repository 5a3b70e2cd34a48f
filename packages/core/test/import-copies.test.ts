// How the import reads lines that are not tweets, and how a second copy of a post fills in the first
// (#36): the later copy's counts win, what it leaves out is kept, and the text with its entities comes
// from the copy with the longer edit history.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mergeTweet, objectsOfLine } from "../src/index.ts";

const AUTHOR = "1500000000000000001";

function tweetOf(object: Record<string, unknown>) {
  const [made] = objectsOfLine(JSON.stringify({ data: [object] }), "pages").tweets;
  assert.ok(made);
  return made;
}

describe("lines that hold no tweet", () => {
  it("a user object on a line read as tweets is refused as a user", () => {
    const line = JSON.stringify({ id: AUTHOR, username: "ada", name: "Ada" });
    assert.deepEqual(objectsOfLine(line, "tweets").refusals, ["a user object (@ada) on a line read as a tweet"]);
  });
});

describe("a second copy of a post", () => {
  const id = "1600000000000000001";
  const edited = {
    id,
    text: "after the edit #news",
    author_id: AUTHOR,
    edit_history_tweet_ids: ["1600000000000000000", id],
    entities: { hashtags: [{ start: 15, end: 20, tag: "news" }] },
    public_metrics: { like_count: 9 },
  };

  it("an earlier capture met later brings its counts but not its old text", () => {
    const before = { id, text: "before the edit", author_id: AUTHOR, public_metrics: { like_count: 3 } };
    const merged = mergeTweet(tweetOf(edited), tweetOf(before));
    assert.equal(merged.tweet.text, edited.text);
    assert.deepEqual(merged.tweet.entities.hashtags, edited.entities.hashtags);
    assert.equal(merged.tweet.like_count, 3);
    assert.equal(merged.versions, 2);
  });

  it("a bare copy keeps the counts, language and entities it leaves out", () => {
    const full = { ...edited, lang: "pt" };
    const merged = mergeTweet(tweetOf(full), tweetOf({ id, text: edited.text, author_id: AUTHOR }));
    assert.equal(merged.tweet.lang, "pt");
    assert.equal(merged.tweet.like_count, 9);
    assert.deepEqual(merged.tweet.entities.hashtags, edited.entities.hashtags);
  });
});

// How the import reads lines that are not tweets, and how a second copy of a post fills in the first
// (#36): the later copy's counts win, what it leaves out is kept, and the text with its entities comes
// from the copy with the longer edit history.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { mergeTweet, mergeUser, objectsOfLine, X_FIELDS } from "../src/index.ts";

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

function pageOf(page: Record<string, unknown>) {
  return objectsOfLine(JSON.stringify(page), "pages");
}

function userOf(object: Record<string, unknown>) {
  const [made] = objectsOfLine(JSON.stringify(object), "users").users;
  assert.ok(made);
  return made;
}

describe("a later copy leaves what it does not really give (#36)", () => {
  const id = "1600000000000000002";
  const photo = { media_key: "3_1", type: "photo", url: "https://pbs.twimg.com/media/a.jpg", alt_text: "A cup" };
  const video = {
    media_key: "7_1",
    type: "video",
    preview_image_url: "https://pbs.twimg.com/media/still.jpg",
    duration_ms: 9000,
  };
  const post = { id, text: "two cups", author_id: AUTHOR, attachments: { media_keys: ["3_1", "7_1"] } };
  const primary = () => {
    const [made] = pageOf({ data: [post], includes: { media: [photo, video] } }).tweets;
    assert.ok(made);
    return made;
  };

  it("a copy in includes.tweets whose media keys the page did not expand keeps the stored media", () => {
    const retweet = {
      id: "1600000000000000003",
      text: "RT two cups",
      author_id: AUTHOR,
      referenced_tweets: [{ type: "retweeted", id }],
    };
    const included = pageOf({ data: [retweet], includes: { tweets: [post] } }).tweets.find(
      (copy) => copy.tweet.id === id,
    );
    assert.ok(included);
    const merged = mergeTweet(primary(), included);
    assert.deepEqual(merged.tweet.media, primary().tweet.media);
    assert.deepEqual(merged.tweet[X_FIELDS]?.media, [photo, video]);
  });

  it("media merge by key: the keys a page resolves are the later copy's, the rest stay as stored", () => {
    const retold = { ...photo, alt_text: "Two cups" };
    const [later] = pageOf({ data: [post], includes: { media: [retold] } }).tweets;
    assert.ok(later);
    const merged = mergeTweet(primary(), later);
    assert.deepEqual(merged.tweet[X_FIELDS]?.media, [retold, video]);
    assert.deepEqual(merged.tweet.media?.length, 2);
  });

  const reply = {
    id,
    text: "@ada yes",
    author_id: AUTHOR,
    in_reply_to_user_id: "1500000000000000009",
    referenced_tweets: [{ type: "replied_to", id: "1600000000000000000" }],
  };

  it("a copy with referenced_tweets alone keeps the user it replies to", () => {
    const { in_reply_to_user_id: _user, ...references } = reply;
    const merged = mergeTweet(tweetOf(reply), tweetOf(references));
    assert.equal(merged.tweet.in_reply_to_user_id, reply.in_reply_to_user_id);
    assert.deepEqual(merged.tweet.referenced_tweets, reply.referenced_tweets);
  });

  it("a copy with in_reply_to_user_id alone keeps the posts it references", () => {
    const { referenced_tweets: _references, ...user } = reply;
    const merged = mergeTweet(tweetOf(reply), tweetOf(user));
    assert.deepEqual(merged.tweet.referenced_tweets, reply.referenced_tweets);
    assert.equal(merged.tweet.in_reply_to_user_id, reply.in_reply_to_user_id);
  });

  it("a copy with some metrics keeps the others, one by one", () => {
    const counted = { id, text: "two cups", author_id: AUTHOR, public_metrics: { like_count: 9, retweet_count: 4 } };
    const merged = mergeTweet(tweetOf(counted), tweetOf({ ...counted, public_metrics: { like_count: 12 } }));
    assert.equal(merged.tweet.like_count, 12);
    assert.equal(merged.tweet.retweet_count, 4);
  });

  const long = "A long post. ".repeat(30).trim();
  const note = { id, text: `${long.slice(0, 270)}…`, author_id: AUTHOR, note_tweet: { text: long } };

  it("a long post's copy fetched without note_tweet does not cut its stored text", () => {
    const { note_tweet: _note, ...cut } = note;
    const merged = mergeTweet(tweetOf(note), tweetOf({ ...cut, public_metrics: { like_count: 3 } }));
    assert.equal(merged.tweet.text, long);
    assert.equal(merged.tweet.like_count, 3);
    const restored = mergeTweet(tweetOf(cut), tweetOf(note));
    assert.equal(restored.tweet.text, long);
  });

  it("merging a copy into itself changes nothing", () => {
    for (const copy of [primary(), tweetOf(note), tweetOf(reply)]) {
      assert.deepEqual(mergeTweet(copy, copy), copy);
    }
  });
});

describe("a later copy of a user", () => {
  const ada = {
    id: AUTHOR,
    username: "ada",
    verified: true,
    verified_type: "blue",
    public_metrics: { followers_count: 10, following_count: 2, tweet_count: 5, listed_count: 1, media_count: 7 },
  };

  it("one with verified_type but no verified keeps the verified flag", () => {
    const merged = mergeUser(userOf(ada), userOf({ id: AUTHOR, username: "ada", verified_type: "business" }));
    assert.equal(merged.user.verified, true);
    assert.equal(merged.user[X_FIELDS]?.verified_type, "business");
  });

  it("public_metrics without media_count keeps it, and the counts given win", () => {
    const later = { id: AUTHOR, username: "ada", public_metrics: { followers_count: 11, tweet_count: 6 } };
    const merged = mergeUser(userOf(ada), userOf(later));
    assert.equal(merged.user.follower_count, 11);
    assert.equal(merged.user.following_count, 2);
    assert.equal(merged.user.media_count, 7);
    assert.equal(merged.user[X_FIELDS]?.listed_count, 1);
  });

  it("merging a copy into itself changes nothing", () => {
    assert.deepEqual(mergeUser(userOf(ada), userOf(ada)), userOf(ada));
  });
});

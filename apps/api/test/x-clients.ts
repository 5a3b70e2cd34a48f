// The X API v2 client libraries as the /2 tests use them: unchanged, pointed at a test server, and a
// read measured by what it charged a fresh account.
import http from "node:http";
import { Client } from "@xdevplatform/xdk";
import { TwitterApi } from "twitter-api-v2";
import type { TestServer } from "./harness.ts";

export function twitterClient(server: TestServer, key: string): TwitterApi {
  // A fresh agent per client: twitter-api-v2 would otherwise keep connections across test servers.
  const client = new TwitterApi(key, { httpAgent: new http.Agent() });
  // setPrefix is how twitter-api-v2 retargets v2 calls; its typings mark it protected.
  (client.v2 as unknown as { setPrefix(prefix: string): void }).setPrefix(`${server.url}/2/`);
  return client;
}

export function xdkClient(server: TestServer, key: string): Client {
  return new Client({ bearerToken: key, baseUrl: server.url });
}

/** Runs `read` with the key of a fresh account holding `credits`, and what the account was charged. */
export async function charging<T>(
  server: TestServer,
  read: (key: string) => Promise<T>,
  credits = 1_000_000,
): Promise<{ result: T; charged: number }> {
  const { accountId, key } = await server.account(credits);
  const result = await read(key);
  return { result, charged: credits - (await server.balance(accountId)) };
}

/** twarc2's defaults for tweet reads (twarc/expansions.py EVERYTHING), sent on every search and timeline. */
export const TWARC_EVERYTHING = new URLSearchParams({
  expansions: [
    "author_id",
    "in_reply_to_user_id",
    "referenced_tweets.id",
    "referenced_tweets.id.author_id",
    "entities.mentions.username",
    "attachments.poll_ids",
    "attachments.media_keys",
    "geo.place_id",
  ].join(","),
  "user.fields":
    "created_at,description,entities,id,location,name,pinned_tweet_id,profile_image_url,protected,public_metrics,url,username,verified,withheld",
  "tweet.fields":
    "attachments,author_id,context_annotations,conversation_id,created_at,entities,geo,id,in_reply_to_user_id,lang,public_metrics,text,possibly_sensitive,referenced_tweets,reply_settings,source,withheld",
  "media.fields": "duration_ms,height,media_key,preview_image_url,type,url,width,public_metrics",
  "poll.fields": "duration_minutes,end_datetime,id,options,voting_status",
  "place.fields": "contained_within,country,country_code,full_name,geo,id,name,place_type",
}).toString();

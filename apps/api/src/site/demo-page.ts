// The demo for a browser: which read ran and with what, its answer laid out to read, and what the same
// request costs with a key. The JSON the demo sends programs says charged 0 and remaining 0 because no
// account stands behind it; the page says so rather than show a balance of 0.
import { describeEndpointCost, type Tweet, type User } from "@social/core";
import type { DemoRun } from "../demo.ts";
import type { ExampleAnswer } from "./example-read.ts";
import { escapeHtml, number, publicPage } from "./page.ts";
import { curlCommand, endpointRequest } from "./requests.ts";

function tweetList(tweets: readonly Tweet[]): string {
  if (tweets.length === 0) return "<p>No tweets.</p>";
  const items = tweets.map(
    (tweet) =>
      `<li><p>${escapeHtml(tweet.text)}</p><p class="muted">${escapeHtml(tweet.created_at.slice(0, 16).replace("T", " "))} UTC · ${number(tweet.like_count)} likes · ${number(tweet.retweet_count)} retweets · id <code>${escapeHtml(tweet.id)}</code></p></li>`,
  );
  return `<ol id="tweets">${items.join("")}</ol>`;
}

function userCard(user: User): string {
  return `<section id="user" aria-labelledby="user-name"><h2 id="user-name">${escapeHtml(user.name)} <span class="muted">@${escapeHtml(user.username)}</span></h2>
<p>${escapeHtml(user.description)}</p>
<p>${number(user.follower_count)} followers · ${number(user.following_count)} following · ${number(user.tweet_count)} tweets</p></section>`;
}

function answerOf(run: DemoRun, data: unknown): string {
  if (run === "search") return `<h2>Matching tweets, newest first</h2>${tweetList(data as Tweet[])}`;
  const profile = data as { user: User; recent_tweets: Tweet[] };
  return `${userCard(profile.user)}<h2>Recent tweets</h2>${tweetList(profile.recent_tweets)}`;
}

export function demoPage(baseUrl: string, run: DemoRun, answer: ExampleAnswer): string {
  const { endpoint, params } = answer;
  const asked = Object.fromEntries(Object.entries(params).filter(([name]) => endpoint.examples[name] !== undefined));
  const request = endpointRequest(endpoint, Object.fromEntries(Object.entries(asked).map(([k, v]) => [k, String(v)])));
  const what =
    run === "search"
      ? `a recent search for <code id="demo-query">${escapeHtml(String(params.query))}</code>`
      : `the profile of <code id="demo-user">@${escapeHtml(String(params.username))}</code> with recent tweets`;
  const other =
    run === "search" ? `<a href="/demo">the profile demo</a>` : `<a href="/demo?run=search">the search demo</a>`;
  return publicPage({
    title: "Demo · Social Data API",
    body: `<header><p><a href="/">Social Data API</a> · <a href="/docs">API docs</a></p><h1>Demo: ${what}</h1></header>
<main>
<p>This ran <span class="method">GET</span> <code id="demo-endpoint">${escapeHtml(request.path)}</code> for every visitor, without a key, and is refreshed about once a minute. See also ${other}.</p>
<p id="demo-cost"><strong>Cost:</strong> with your key this request would be charged <strong>${number(answer.cost)} credit${answer.cost === 1 ? "" : "s"}</strong> (${escapeHtml(describeEndpointCost(endpoint))}). The demo charges nobody: its JSON says <code>"charged": 0</code>, and its <code>"remaining": 0</code> is not a balance, since no account stands behind the demo. With a key, <code>meta.credits.remaining</code> is your account's balance.</p>
<h2>The same request with your key</h2>
<pre><code class="curl">${escapeHtml(curlCommand(baseUrl, request))}</code></pre>
${answerOf(run, answer.data)}
<p class="muted">Programs get this answer as JSON: send <code>Accept: application/json</code>, or no Accept header.</p>
</main>`,
  });
}

"""What a tweepy collector does, unchanged but for where its session sends requests.

Run by ../tweepy.test.ts with Debian's /usr/bin/python3 and python3-tweepy. It makes the calls a
collector makes, with tweepy's own models, paginator and error classes, and prints one JSON report of
what tweepy handed back; the test checks the report against /v1 and the ledger.

Environment: SERVER (the base URL), KEY (a funded key), POOR_KEY (a key with 1 credit), LIMITED_SERVER
and LIMITED_KEY (a server whose bucket holds 2 requests), and EXAMPLES (the fixture examples as JSON).
"""

import datetime
import json
import os
import sys
import time

import requests
import tweepy

X_HOST = "https://api.twitter.com"


class LocalSession(requests.Session):
    """tweepy's requests go to X's host; this session sends them to the server under test instead."""

    def __init__(self, base):
        super().__init__()
        self.base = base

    def request(self, method, url, *args, **kwargs):
        if url.startswith(X_HOST):
            url = self.base + url[len(X_HOST):]
        return super().request(method, url, *args, **kwargs)


def client(base, key, **options):
    made = tweepy.Client(bearer_token=key, **options)
    made.session = LocalSession(base)
    return made


def ids(items):
    return [str(item.id) for item in items or []]


def pages(paginator):
    """The ids of every page a paginator fetched, page by page (each page is one charged request)."""
    return [ids(response.data) for response in paginator]


def main():
    examples = json.loads(os.environ["EXAMPLES"])
    query = examples["search_query"]
    api = client(os.environ["SERVER"], os.environ["KEY"])
    report = {}

    found = api.search_recent_tweets(
        query,
        max_results=10,
        expansions=["author_id", "referenced_tweets.id", "attachments.media_keys"],
        tweet_fields=["created_at", "public_metrics", "referenced_tweets", "attachments"],
        user_fields=["public_metrics", "verified"],
        media_fields=["url", "preview_image_url"],
    )
    report["search"] = {
        "ids": ids(found.data),
        "authors": [str(tweet.author_id) for tweet in found.data],
        "included_users": ids(found.includes.get("users")),
        "referenced": sorted({str(ref.id) for tweet in found.data for ref in (tweet.referenced_tweets or [])}),
        "included_tweets": ids(found.includes.get("tweets")),
        "likes": [tweet.public_metrics["like_count"] for tweet in found.data],
        "meta": found.meta,
    }

    report["paginator"] = pages(tweepy.Paginator(api.search_recent_tweets, query, max_results=20))

    user_id = examples["user_id"]
    everything = api.get_users_tweets(user_id, max_results=100, exclude=["replies"], tweet_fields=["referenced_tweets"])
    originals = [
        str(tweet.id)
        for tweet in everything.data
        if not any(ref.type == "retweeted" for ref in (tweet.referenced_tweets or []))
    ]
    since = originals[len(originals) // 2]
    polled = pages(
        tweepy.Paginator(api.get_users_tweets, user_id, since_id=since, exclude=["retweets", "replies"], max_results=5)
    )
    report["timeline"] = {"everything": len(everything.data), "originals": originals, "since_id": since, "polled": polled}

    mentions = list(
        tweepy.Paginator(
            api.get_users_mentions,
            user_id,
            max_results=100,
            expansions=["author_id"],
            tweet_fields=["entities", "author_id", "created_at"],
        )
    )
    walked = [tweet for response in mentions for tweet in response.data or []]
    # A window of fewer tweets than one page holds.
    newest, oldest = walked[len(walked) // 4], walked[len(walked) // 4 + 40]
    window = api.get_users_mentions(
        user_id,
        max_results=100,
        since_id=oldest.id,
        until_id=newest.id,
        start_time=oldest.created_at,
        end_time=newest.created_at,
    )
    report["mentions"] = {
        "pages": [ids(response.data) for response in mentions],
        "named": [sorted(str(m["id"]) for m in tweet.entities["mentions"]) for tweet in walked],
        "authors": [str(tweet.author_id) for tweet in walked],
        "included_users": sorted({str(user.id) for response in mentions for user in response.includes["users"]}),
        "metas": [response.meta for response in mentions],
        "since_id": str(oldest.id),
        "until_id": str(newest.id),
        # As tweepy sends a datetime: in whole seconds.
        "start_time": oldest.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end_time": newest.created_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "created": [tweet.created_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ") for tweet in walked],
        "window": ids(window.data),
    }

    names = [examples["username"].upper(), examples["source_username"], "nobody_here_x"]
    users = api.get_users(usernames=names, user_fields=["public_metrics"])
    report["users"] = {
        "usernames": [user.username for user in users.data],
        "followers": [user.public_metrics["followers_count"] for user in users.data],
        "errors": [{"parameter": error["parameter"], "value": error["value"]} for error in users.errors],
    }

    week = api.get_recent_tweets_count(query, granularity="day")
    # A window inside hours at both ends, passed as datetimes for tweepy to format.
    clock = datetime.datetime.fromisoformat(week.data[-1]["end"].replace("Z", "+00:00"))
    start = clock - datetime.timedelta(hours=50, minutes=17, seconds=13)
    end = clock - datetime.timedelta(hours=3, minutes=5)
    hours = api.get_recent_tweets_count(query, granularity="hour", start_time=start, end_time=end)
    report["counts"] = {
        "week": {"data": week.data, "meta": week.meta},
        "hours": {"data": hours.data, "meta": hours.meta},
        "start_time": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "end_time": end.strftime("%Y-%m-%dT%H:%M:%SZ"),
    }

    poor = client(os.environ["SERVER"], os.environ["POOR_KEY"])
    try:
        poor.search_recent_tweets(query, max_results=20)
        report["payment"] = {"raised": None}
    except tweepy.HTTPException as error:
        body = error.response.json()
        report["payment"] = {
            "raised": type(error).__name__,
            "status": error.response.status_code,
            "reason": body["error"]["details"]["reason"],
            "fits": body["error"]["details"].get("fits"),
        }

    limited = client(os.environ["LIMITED_SERVER"], os.environ["LIMITED_KEY"], wait_on_rate_limit=True)
    started = time.monotonic()
    looked_up = [str(limited.get_user(id=user_id).data.id) for _ in range(3)]
    waited = time.monotonic() - started
    impatient = client(os.environ["LIMITED_SERVER"], os.environ["LIMITED_KEY"])
    refused = None
    # The bucket refilled while tweepy slept; a few quick calls empty it again.
    for _ in range(5):
        try:
            impatient.get_user(id=user_id)
        except tweepy.TooManyRequests as error:
            refused = {"status": error.response.status_code, "reset": error.response.headers["x-rate-limit-reset"]}
            break
    report["rate_limit"] = {"ids": looked_up, "waited_s": waited, "refused": refused}

    json.dump(report, sys.stdout)


if __name__ == "__main__":
    main()

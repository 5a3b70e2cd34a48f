import { describe, expect, test } from "bun:test";
import { requestPath, requestTarget } from "../src/http/url.ts";

describe("requestTarget", () => {
  test("reads path and query as a full URL parse would, for the URLs a server receives", () => {
    for (const url of [
      "http://127.0.0.1:3000/v1/tweets/1",
      "http://127.0.0.1:3000/v1/search/recent?query=a%20b&query=c&next_token=x%2By",
      "http://[::1]:3000/v1/users/by-username/x?",
      "http://example.com/",
      "http://example.com/2/tweets/search/recent?query=from:a&max_results=10#frag-never-sent",
    ]) {
      const parsed = new URL(url);
      const target = requestTarget(url.replace(/#.*$/, ""));
      expect(target.path).toBe(parsed.pathname);
      expect([...target.query]).toEqual([...parsed.searchParams]);
      expect(requestPath(url)).toBe(target.path);
    }
  });

  test("a URL without a path is the root", () => {
    expect(requestTarget("http://example.com")).toEqual({ path: "/", query: new URLSearchParams() });
  });
});

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

  test("copes with every URL Bun builds from an odd Host header, which new URL() refuses", () => {
    // request.url as Bun 1.4 builds it for `GET /p/q?r=1&s=http://x/y` with each Host header.
    const cases: [host: string, url: string][] = [
      ["x:y", "http://x:y/p/q?r=1&s=http://x/y"],
      ["[::1", "http://[::1/p/q?r=1&s=http://x/y"],
      [":80", "http://:80/p/q?r=1&s=http://x/y"],
      ["a b", "/p/q?r=1&s=http://x/y"],
      ["(none, HTTP/1.0)", "/p/q?r=1&s=http://x/y"],
    ];
    for (const [host, url] of cases) {
      const target = requestTarget(url);
      expect({ host, path: target.path, query: [...target.query] }).toEqual({
        host,
        path: "/p/q",
        query: [
          ["r", "1"],
          ["s", "http://x/y"],
        ],
      });
      expect(requestPath(url)).toBe("/p/q");
    }
  });

  test("CONNECT's authority-form target is its own path, with no query", () => {
    expect(requestTarget("1:1")).toEqual({ path: "1:1", query: new URLSearchParams() });
    expect(requestPath("example.com:443")).toBe("example.com:443");
  });
});

import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { requestPath, requestTarget } from "../src/request.ts";

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
      assert.equal(target.path, parsed.pathname);
      assert.deepEqual([...target.query], [...parsed.searchParams]);
      assert.equal(requestPath(url), target.path);
    }
  });

  test("a URL without a path is the root", () => {
    const target = requestTarget("http://example.com");
    assert.equal(target.path, "/");
    assert.deepEqual([...target.query], []);
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
      assert.deepEqual(
        { host, path: target.path, query: [...target.query] },
        {
          host,
          path: "/p/q",
          query: [
            ["r", "1"],
            ["s", "http://x/y"],
          ],
        },
      );
      assert.equal(requestPath(url), "/p/q");
    }
  });

  test("CONNECT's authority-form target is its own path, with no query", () => {
    const target = requestTarget("1:1");
    assert.equal(target.path, "1:1");
    assert.deepEqual([...target.query], []);
    assert.equal(requestPath("example.com:443"), "example.com:443");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseDatabaseUrl } from "../src/database-url.ts";

describe("DATABASE_URL", () => {
  it("is SQLite for paths, file: URLs and :memory:", () => {
    assert.deepEqual(parseDatabaseUrl("data/social.db"), { kind: "sqlite", path: "data/social.db" });
    assert.deepEqual(parseDatabaseUrl("/var/lib/social.db"), { kind: "sqlite", path: "/var/lib/social.db" });
    assert.deepEqual(parseDatabaseUrl("file:data/social.db"), { kind: "sqlite", path: "data/social.db" });
    assert.deepEqual(parseDatabaseUrl(":memory:"), { kind: "sqlite", path: ":memory:" });
  });

  it("is PostgreSQL for postgres:// and postgresql://, whatever the case of the scheme", () => {
    for (const url of ["postgres://app:pw@db:5432/social", "postgresql://app@127.0.0.1/social", "POSTGRES://h/db"]) {
      assert.deepEqual(parseDatabaseUrl(url), { kind: "postgres", url });
    }
  });

  it("refuses any other scheme, and an empty value, with a sentence that says what works", () => {
    for (const url of ["mysql://root@db/social", "redis://127.0.0.1:6379", "http://example.com/db"]) {
      assert.throws(
        () => parseDatabaseUrl(url),
        /no adapter serves: use a file path or file:… for SQLite, or postgres:/,
      );
    }
    assert.throws(() => parseDatabaseUrl(""), /DATABASE_URL is empty/);
    assert.throws(() => parseDatabaseUrl("postgres://[broken"), /not a valid postgres:\/\/ URL/);
  });

  it("names DATABASE_URL and the part at fault, never the password, for a URL the client cannot open", () => {
    const refusal = (url: string) => {
      try {
        parseDatabaseUrl(url);
      } catch (error) {
        return (error as Error).message;
      }
      return "accepted";
    };
    const badPassword = refusal("postgres://app:sekret%ZZpw@db:5432/social");
    assert.match(
      badPassword,
      /^DATABASE_URL's password holds a % that starts no escape \(%XX\): write a literal % as %25$/,
    );
    assert.doesNotMatch(badPassword, /sekret/);
    assert.match(refusal("postgres://app@db/so%GGcial"), /^DATABASE_URL's database name holds a %/);
    assert.match(refusal("postgres://ap%zp@db/social"), /^DATABASE_URL's user name holds a %/);
    assert.match(refusal("postgres://app:pw@/social"), /^DATABASE_URL is not a valid postgres:\/\/ URL: write /);
    for (const url of ["postgres://", "postgresql:///social"]) {
      assert.match(refusal(url), /^DATABASE_URL names no host: write postgres:\/\/user:password@host:port\/database$/);
    }
    assert.equal(refusal("postgres://app:pa%25ss@db/social"), "accepted");
  });
});

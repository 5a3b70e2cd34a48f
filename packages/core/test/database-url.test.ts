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
});

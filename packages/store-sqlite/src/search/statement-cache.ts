// Search statements differ by the shape of the query, so they cannot all be prepared up front. This
// keeps the most recently used ones prepared; bun's own `db.query` cache would grow with every distinct
// query shape a client ever sends.
import type { Database, Statement } from "bun:sqlite";

export class StatementCache {
  readonly #db: Database;
  readonly #capacity: number;
  readonly #statements = new Map<string, Statement>();

  constructor(db: Database, capacity: number) {
    this.#db = db;
    this.#capacity = capacity;
  }

  get(sql: string): Statement {
    const cached = this.#statements.get(sql);
    if (cached !== undefined) {
      // Re-inserting moves the entry to the end of the Map's order: the oldest entry is the least used.
      this.#statements.delete(sql);
      this.#statements.set(sql, cached);
      return cached;
    }
    const statement = this.#db.prepare(sql);
    this.#statements.set(sql, statement);
    if (this.#statements.size > this.#capacity) {
      const [oldestSql, oldest] = this.#statements.entries().next().value as [string, Statement];
      this.#statements.delete(oldestSql);
      oldest.finalize();
    }
    return statement;
  }
}

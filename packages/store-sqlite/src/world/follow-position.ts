// Where each followed file's import stands (core's FollowPosition), one row per path: written in the
// transaction of the batch it covers, so a restart resumes exactly after the last committed line.
import type { Database } from "bun:sqlite";
import type { FollowPosition } from "@social/core";

export function readFollowPosition(db: Database, path: string): FollowPosition | undefined {
  return (
    db
      .query<FollowPosition, [string]>(
        "SELECT path, device, inode, byte_offset AS offset, line FROM import_positions WHERE path = ?",
      )
      .get(path) ?? undefined
  );
}

export function writeFollowPosition(db: Database, position: FollowPosition): void {
  db.query(
    `INSERT INTO import_positions (path, device, inode, byte_offset, line) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (path) DO UPDATE SET device = excluded.device, inode = excluded.inode,
      byte_offset = excluded.byte_offset, line = excluded.line`,
  ).run(position.path, position.device, position.inode, position.offset, position.line);
}

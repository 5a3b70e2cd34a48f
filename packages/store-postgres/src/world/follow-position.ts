// Where each followed file's import stands (core's FollowPosition), one row per path: written in the
// transaction of the batch it covers, so a restart resumes exactly after the last committed line.
import type { FollowPosition } from "@social/core";
import type { SQL, TransactionSQL } from "bun";

export async function readFollowPosition(sql: SQL, path: string): Promise<FollowPosition | undefined> {
  // BIGINT comes back as text: both numbers stay far below 2^53.
  const [row] = await sql<{ path: string; device: string; inode: string; offset: string; line: string }[]>`
    SELECT path, device, inode, byte_offset::text AS offset, line::text AS line
    FROM import_positions WHERE path = ${path}`;
  return row === undefined ? undefined : { ...row, offset: Number(row.offset), line: Number(row.line) };
}

export async function writeFollowPosition(tx: TransactionSQL, position: FollowPosition): Promise<void> {
  await tx`
    INSERT INTO import_positions (path, device, inode, byte_offset, line)
    VALUES (${position.path}, ${position.device}, ${position.inode}, ${position.offset}, ${position.line})
    ON CONFLICT (path) DO UPDATE SET device = excluded.device, inode = excluded.inode,
      byte_offset = excluded.byte_offset, line = excluded.line`;
}

// The lines of a JSON Lines file, plain or gzip-compressed (told by its first bytes, whatever its name),
// read as a stream so a file of any size takes the memory of one line. A line longer than the importer
// accepts is cut just past that length (the importer refuses it) rather than held whole.
import { createReadStream } from "node:fs";
import { createGunzip } from "node:zlib";
import { MAX_LINE_CHARS } from "@social/core";

const GZIP_MAGIC = [0x1f, 0x8b];

export interface FileLines {
  /** Bytes of the file read so far (compressed bytes for a .gz), for progress. */
  readonly bytesRead: number;
  lines(): AsyncIterable<string>;
}

async function isGzip(path: string): Promise<boolean> {
  const file = Bun.file(path);
  const head = new Uint8Array(await file.slice(0, 2).arrayBuffer());
  return head[0] === GZIP_MAGIC[0] && head[1] === GZIP_MAGIC[1];
}

export function fileLines(path: string): FileLines {
  let bytesRead = 0;
  return {
    get bytesRead() {
      return bytesRead;
    },
    async *lines() {
      bytesRead = 0;
      // Told before the stream opens: the byte counter below sets it flowing, so an await between the
      // two let a small file flow past before anything read it (the lines were lost, under load).
      const gzip = await isGzip(path);
      const file = createReadStream(path);
      file.on("data", (chunk) => {
        bytesRead += chunk.length;
      });
      const stream = gzip ? file.pipe(createGunzip()) : file;
      const decoder = new TextDecoder("utf-8");
      let pending = "";
      let overlong = false;
      try {
        for await (const chunk of stream as AsyncIterable<Uint8Array>) {
          const parts = decoder.decode(chunk, { stream: true }).split("\n");
          for (let index = 0; index < parts.length - 1; index++) {
            const line = overlong ? pending : pending + (parts[index] as string);
            pending = "";
            overlong = false;
            yield line.endsWith("\r") ? line.slice(0, -1) : line;
          }
          if (!overlong) pending += parts.at(-1) as string;
          if (pending.length > MAX_LINE_CHARS) {
            pending = pending.slice(0, MAX_LINE_CHARS + 1);
            overlong = true;
          }
        }
        const last = pending + decoder.decode();
        if (last !== "") yield last;
      } finally {
        file.destroy();
      }
    },
  };
}

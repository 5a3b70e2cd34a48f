// HTTP/1.1 written byte for byte on a socket: fetch refuses what an attacker sends freely (a Host
// header of any text, a CONNECT request line), so these requests go out raw and their answers are read
// back into a Response for readAnswer.
import { readFileSync } from "node:fs";
import { connect, type Socket } from "node:net";

/** Generous: a busy shared machine is slow, but a request that hangs is a bug. */
const ANSWER_WITHIN_MS = 15_000;

export interface RawAnswer {
  response: Response;
  /** The body as sent, to look for what must never be in it (a stack, a path, source). */
  text: string;
}

/** Writes `head` (request line and headers, no blank line) and `body`, and reads until the server closes. */
function exchange(url: string, head: string, body: string): Promise<Buffer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    // Written without half-closing: Bun drops a request whose client has ended its side before the
    // answer is ready (a sign-in that waits for its identity provider), and Connection: close ends it.
    const socket = connect(Number(port), hostname, () => socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`));
    socket.setTimeout(ANSWER_WITHIN_MS, () => socket.destroy(new Error(`no answer to ${head.split("\r\n")[0]}`)));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(Buffer.concat(chunks)));
    socket.on("error", (error) => (chunks.length > 0 ? resolve(Buffer.concat(chunks)) : reject(error)));
  });
}

/** A chunked body's data, joined: `size CRLF data CRLF` until a chunk of size 0. */
function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = body.indexOf("\r\n", at);
    const size = Number.parseInt(body.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) return Buffer.concat(parts);
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}

function parse(raw: Buffer): RawAnswer {
  const headEnd = raw.indexOf("\r\n\r\n");
  if (headEnd === -1) throw new Error(`not an HTTP answer: ${JSON.stringify(raw.toString("latin1").slice(0, 200))}`);
  const [statusLine = "", ...lines] = raw.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers = new Headers();
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const rest = raw.subarray(headEnd + 4);
  const body = headers.get("transfer-encoding")?.includes("chunked") ? unchunk(rest) : rest;
  const text = body.toString("utf8");
  return { response: new Response(text, { status, headers }), text };
}

/** One request as `head` says, e.g. `GET /v1/tweets/1 HTTP/1.1\r\nHost: x:y`, on a connection of its own. */
export async function rawRequest(url: string, head: string, body = ""): Promise<RawAnswer> {
  return parse(await exchange(url, head, body));
}

/** The local port and the remote port of a socket's line in /proc/net/tcp: `0100007F:1F90`, upper-case hex. */
function procAddress(port: number): string {
  return `:${port.toString(16).toUpperCase().padStart(4, "0")}`;
}

/**
 * Bytes that reached the socket and that nobody has read yet: the rx_queue of its line in Linux's
 * /proc/net/tcp (the kernel's own count, updated as the peer writes on loopback).
 */
function unreadBytes(socket: Socket): number {
  const local = procAddress(socket.localPort ?? 0);
  const remote = procAddress(socket.remotePort ?? 0);
  for (const line of readFileSync("/proc/net/tcp", "latin1").split("\n")) {
    const [, localAddress, remoteAddress, , queues] = line.trim().split(/\s+/);
    if (localAddress?.endsWith(local) && remoteAddress?.endsWith(remote)) {
      return Number.parseInt(queues?.split(":")[1] ?? "", 16);
    }
  }
  throw new Error(`no line for ${socket.localPort} → ${socket.remotePort} in /proc/net/tcp`);
}

/** What a client that gives up early got: nothing (it reset the connection first), or the whole answer. */
export type ResetOrAnswer = { reset: true } | { reset: false; answer: RawAnswer };

/**
 * Sends `head` and `body`; `afterMs` later, resets the connection (RST) if nothing of the answer has
 * reached the socket, read or not, else reads the whole answer. Only for a server running in this
 * process: it cannot write between the look and the reset, so a reset answer is one that had not been
 * written when the client left, and its client could never have read it.
 */
export function resetUnlessAnswered(url: string, head: string, body: string, afterMs: number): Promise<ResetOrAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let reset = false;
    const socket = connect(Number(port), hostname, () => {
      socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`);
      setTimeout(() => {
        if (socket.destroyed || chunks.length > 0 || unreadBytes(socket) > 0) return;
        reset = true;
        socket.resetAndDestroy();
      }, afterMs);
    });
    socket.setTimeout(ANSWER_WITHIN_MS, () => socket.destroy(new Error(`no answer to ${head.split("\r\n")[0]}`)));
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("close", () => resolve(reset ? { reset } : { reset, answer: parse(Buffer.concat(chunks)) }));
    socket.on("error", (error) => {
      if (!reset) reject(error);
    });
  });
}

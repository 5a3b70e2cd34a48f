// Why Redis refused a connection, asked of Redis itself. Bun's client reports every refusal at
// connection time as "Connection closed", so a wrong password looked like an outage: the server
// started, said its limits were shared, and each process counted alone. This sends what the client
// sends first (HELLO 3, with AUTH when the URL has a password) on a socket of its own and reads the
// first reply: an error there (WRONGPASS, NOAUTH, an unknown HELLO on a Redis older than 6) is the
// operator's to fix, not an outage to wait out.

/** The RESP encoding of one command. */
function command(parts: readonly string[]): string {
  return `*${parts.length}\r\n${parts.map((part) => `$${Buffer.byteLength(part)}\r\n${part}\r\n`).join("")}`;
}

/** The handshake Bun's client opens with, for the credentials in `url`. */
function handshake(url: URL): string {
  const password = decodeURIComponent(url.password);
  if (password === "") return command(["HELLO", "3"]);
  return command(["HELLO", "3", "AUTH", decodeURIComponent(url.username) || "default", password]);
}

/**
 * The error Redis at `url` answers the client's handshake with, e.g. "WRONGPASS invalid username-password
 * pair or user is disabled."; undefined when it accepts it, or cannot be reached within `timeoutMs`
 * (an outage, which the limiter rides out).
 */
export async function redisRefusal(url: string, timeoutMs = 2_000): Promise<string | undefined> {
  const parsed = new URL(url);
  const { promise, resolve } = Promise.withResolvers<string | undefined>();
  let reply = "";
  const timer = setTimeout(() => resolve(undefined), timeoutMs);
  try {
    const socket = await Bun.connect({
      hostname: parsed.hostname.replace(/^\[|\]$/g, ""),
      port: Number(parsed.port || 6379),
      ...(parsed.protocol === "rediss:" ? { tls: true } : {}),
      socket: {
        open: (opened) => void opened.write(handshake(parsed)),
        data: (_, chunk) => {
          reply += chunk.toString("utf8");
          const end = reply.indexOf("\r\n");
          if (end < 0 && reply.length < 1_000) return;
          resolve(reply.startsWith("-") ? reply.slice(1, end < 0 ? 1_000 : end) : undefined);
        },
        close: () => resolve(undefined),
        error: () => resolve(undefined),
        connectError: () => resolve(undefined),
      },
    });
    const refusal = await promise;
    socket.end();
    return refusal;
  } catch {
    return undefined;
  } finally {
    clearTimeout(timer);
  }
}

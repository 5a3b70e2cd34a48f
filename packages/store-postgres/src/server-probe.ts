// A connection to a port nothing listens on can be given that same port as its own by the kernel, when
// the port lies in the ephemeral range (`net.ipv4.ip_local_port_range`): it then reaches itself (TCP
// simultaneous open), and while it stays open it holds the port, so a PostgreSQL restarting there
// cannot listen ("could not create any TCP/IP sockets"). Under load, the pool's reconnection attempts
// during an outage walk the whole range within seconds.
//
// Bun's SQL opens its sockets itself and shows them to no one, but it asks for the password before each
// connection it opens, the pool's and the LISTEN connection's alike, and opens none when that fails. So
// the pool asks the probe first: a connection of its own to the server, closed at once, that says
// whether something listens there. One that reached itself proves that nothing does: it is reset at
// once, which leaves nothing behind that holds the port, and refused like any other. While the kernel
// knows a listener on the port it never gives the port to a connection, so the pool's own connection,
// opened right after a probe that met the server, cannot reach itself (short of the server going away
// in that instant). After a probe that found nothing, attempts fail at once, opening no socket, until
// the next probe is due: the outage is answered 503 at once, as before, and the range is not walked.
import { connect, type Socket, type TcpNetConnectOpts } from "node:net";
import { SQL } from "bun";

/** How long after a probe that found no server the next connection attempt probes again. */
const PROBE_AGAIN_MS = 250;
/** How long a probe waits for the server to accept: Bun's own default for opening a connection. */
const PROBE_TIMEOUT_MS = 30_000;

/** Whether `socket` is connected to itself: its own address and port are its peer's. */
export function isSelfConnected(socket: Socket): boolean {
  return socket.localPort === socket.remotePort && socket.localAddress === socket.remoteAddress;
}

/** Nothing accepted the probe's connection: an outage (../outage.ts), as Bun's own failure to connect is. */
export class ServerUnreachable extends Error {
  override name = "ServerUnreachable";
}

/**
 * Connects to `target` once and closes the connection: resolves when a server accepted it, rejects
 * with ServerUnreachable otherwise, a connection that reached itself included (closed at once).
 */
export function probeServer(target: TcpNetConnectOpts, timeoutMs = PROBE_TIMEOUT_MS): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ ...target, timeout: timeoutMs });
    socket.once("connect", () => {
      if (isSelfConnected(socket)) {
        // A reset leaves nothing behind on the port: a closed connection's TIME_WAIT would hold it.
        socket.resetAndDestroy();
        reject(
          new ServerUnreachable(`connect ECONNREFUSED ${target.host}:${target.port}: the connection reached itself`),
        );
        return;
      }
      // Closed before a byte is sent, which the server does not even log.
      socket.destroy();
      resolve();
    });
    socket.once("timeout", () => {
      socket.destroy();
      reject(new ServerUnreachable(`connect ETIMEDOUT ${target.host}:${target.port}`));
    });
    socket.once("error", (error) => reject(new ServerUnreachable(error.message, { cause: error })));
  });
}

/** Lets a connection be opened once a probe has met the server; shares one probe among those waiting. */
class ServerProbe {
  readonly #target: TcpNetConnectOpts;
  #probing: Promise<void> | undefined;
  #lastFailure: { error: unknown; at: number } | undefined;

  constructor(target: TcpNetConnectOpts) {
    this.#target = target;
  }

  admit(): Promise<void> {
    const failure = this.#lastFailure;
    if (failure !== undefined && performance.now() - failure.at < PROBE_AGAIN_MS) return Promise.reject(failure.error);
    this.#probing ??= probeServer(this.#target)
      .then(
        () => {
          this.#lastFailure = undefined;
        },
        (error: unknown) => {
          this.#lastFailure = { error, at: performance.now() };
          throw error;
        },
      )
      .finally(() => {
        this.#probing = undefined;
      });
    return this.#probing;
  }
}

/**
 * A pool on `url` that opens a connection only after a probe met the server. A pool on a unix socket
 * needs none: such a connection cannot reach itself. `connection` holds server settings each of its
 * connections starts with.
 */
export function probedPool(url: string, max: number, connection: Record<string, string | number> = {}): SQL {
  // What Bun makes of the URL and the environment, read from a pool that never opens a connection.
  const unused = new SQL(url);
  const settings = unused.options;
  void unused.close();
  if (settings.path !== undefined || settings.hostname === undefined) return new SQL(url, { max, connection });
  const probe = new ServerProbe({ host: settings.hostname, port: Number(settings.port) });
  const password = settings.password;
  return new SQL(url, {
    max,
    connection,
    password: async () => {
      await probe.admit();
      return typeof password === "function" ? password() : (password ?? "");
    },
  });
}

// A proxy between a client and PostgreSQL that lets one COMMIT through, then drops its reply and closes
// the connection: the one charge a client cannot hear about, a COMMIT that reached the server while its
// reply was lost, made to happen on purpose.
import { freePort } from "@social/testing";
import type { Socket, TCPSocketListener } from "bun";

/** A connection through the proxy: the client's side and the server's. */
interface Link {
  client: Socket<Link>;
  server?: Socket<Link>;
  early: Uint8Array[];
  /** The next bytes from the server are the reply of the COMMIT let through: they are dropped. */
  dropReply: boolean;
}

export interface CommitReplyDropper {
  port: number;
  /** Arms it for the next COMMIT the client sends. */
  loseNextCommitReply(): void;
  /** Whether it has dropped a reply. */
  dropped(): boolean;
  stop(): void;
}

/** Forwards PostgreSQL's protocol both ways between a client and the server on `serverPort`. */
export async function commitReplyDropper(serverPort: number): Promise<CommitReplyDropper> {
  let armed = false;
  let dropped = false;
  const port = await freePort();
  const listener: TCPSocketListener<Link> = Bun.listen<Link>({
    hostname: "127.0.0.1",
    port,
    socket: {
      async open(client) {
        const link: Link = { client, early: [], dropReply: false };
        client.data = link;
        link.server = await Bun.connect<Link>({
          hostname: "127.0.0.1",
          port: serverPort,
          data: link,
          socket: {
            data(_server, chunk) {
              if (!link.dropReply) {
                link.client.write(chunk);
                return;
              }
              dropped = true;
              link.server?.end();
              link.client.end();
            },
            close: () => {
              link.client.end();
            },
          },
        });
        for (const chunk of link.early) link.server.write(chunk);
      },
      data(client, chunk) {
        const link = client.data;
        if (armed && Buffer.from(chunk).includes("COMMIT")) {
          armed = false;
          link.dropReply = true;
        }
        if (link.server) link.server.write(chunk);
        else link.early.push(chunk);
      },
      close: (client) => {
        client.data.server?.end();
      },
    },
  });
  return {
    port,
    loseNextCommitReply: () => {
      armed = true;
    },
    dropped: () => dropped,
    stop: () => listener.stop(true),
  };
}

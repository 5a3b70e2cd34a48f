// The baseline: Bun.serve answering a fixed JSON body of the given size, with no routing or work. With
// a process count above 1, this process serves and starts the others as its children, all on the port
// (reusePort), as the API's workers share theirs.
//
//   bun bench/bare-server.ts <port> <size> [processes]
const [port, size, processes] = process.argv.slice(2, 5).map(Number);
const body = JSON.stringify({ data: "x".repeat(Math.max(0, (size ?? 600) - 11)) });
const others = (processes ?? 1) - 1;
const child = process.argv[5] === "child";
Bun.serve({
  hostname: "127.0.0.1",
  port: port ?? 3999,
  reusePort: others > 0 || child,
  fetch: () => new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } }),
});
if (others > 0) {
  const children = Array.from({ length: others }, () =>
    Bun.spawn([process.execPath, import.meta.path, String(port), String(size), "1", "child"], {
      stdio: ["ignore", "ignore", "inherit"],
    }),
  );
  process.on("SIGTERM", () => {
    for (const one of children) one.kill("SIGTERM");
    process.exit(0);
  });
}

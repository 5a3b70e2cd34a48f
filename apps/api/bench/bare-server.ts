// The baseline: Bun.serve answering a fixed JSON body of the given size, with no routing or work.
const [port, size] = process.argv.slice(2).map(Number);
const body = JSON.stringify({ data: "x".repeat(Math.max(0, (size ?? 600) - 11)) });
Bun.serve({
  hostname: "127.0.0.1",
  port: port ?? 3999,
  fetch: () => new Response(body, { headers: { "content-type": "application/json; charset=utf-8" } }),
});

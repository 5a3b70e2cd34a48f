// A closed-loop HTTP load generator: `connections` clients each send their next request as soon as the
// previous answer arrives, for `seconds`. Runs in its own process so it does not share an event loop
// with the server it measures. Prints one JSON line: requests/s, p50/p99 in ms, non-2xx count.
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    connections: { type: "string", default: "64" },
    seconds: { type: "string", default: "5" },
    key: { type: "string" },
    url: { type: "string", multiple: true },
  },
});
const urls = values.url ?? [];
const connections = Number(values.connections);
const deadline = performance.now() + Number(values.seconds) * 1000;
const headers = values.key ? { authorization: `Bearer ${values.key}` } : undefined;
const latencies: number[] = [];
let failures = 0;
let next = 0;

async function client() {
  while (performance.now() < deadline) {
    const url = urls[next++ % urls.length] as string;
    const started = performance.now();
    const response = await fetch(url, { headers });
    await response.arrayBuffer();
    latencies.push(performance.now() - started);
    if (!response.ok) failures++;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: connections }, client));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
console.log(
  JSON.stringify({
    requests: latencies.length,
    rps: latencies.length / elapsed,
    p50: at(0.5),
    p99: at(0.99),
    failures,
  }),
);

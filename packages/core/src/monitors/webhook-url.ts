// Where a monitor may deliver: an http(s) URL on the public internet. Loopback, private, link-local and
// other special-purpose addresses are refused (a webhook must not reach the operator's own network)
// unless the operator allows them (MONITOR_ALLOW_PRIVATE). A hostname is checked here by its literal
// form; the dispatcher checks the addresses it resolves to before each delivery.

const MAX_URL_LENGTH = 2048;

/** What is wrong with `text` as a webhook URL, or undefined when it may be used. */
export function webhookUrlProblem(text: string, allowPrivate: boolean): string | undefined {
  if (text.length > MAX_URL_LENGTH) return `A webhook URL has at most ${MAX_URL_LENGTH} characters.`;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "The webhook URL is not a valid absolute URL.";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "A webhook URL must use http or https.";
  if (url.username !== "" || url.password !== "") return "A webhook URL may not hold a user name or password.";
  if (allowPrivate) return undefined;
  // A name's final dot (`localhost.`) names the same host.
  const host = url.hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost") || isPrivateAddress(host)) {
    return "A webhook URL must reach a public address: loopback, private and link-local addresses are refused.";
  }
  return undefined;
}

/** Whether an IPv4 or IPv6 address (text) is not a public unicast address; false for a hostname. */
export function isPrivateAddress(address: string): boolean {
  const v4 = ipv4Of(address);
  if (v4) return privateV4(v4);
  const groups = ipv6Of(address);
  if (!groups) return false;
  const v6 = (index: number) => groups[index] ?? 0;
  // ::ffff:a.b.c.d (IPv4-mapped) and ::a.b.c.d (IPv4-compatible) are the IPv4 address.
  if (groups.slice(0, 5).every((part) => part === 0) && (v6(5) === 0xffff || v6(5) === 0)) {
    const mapped = [v6(6) >> 8, v6(6) & 0xff, v6(7) >> 8, v6(7) & 0xff];
    if (v6(5) === 0xffff || mapped.some((byte) => byte !== 0)) return privateV4(mapped);
  }
  const first = v6(0);
  if (groups.every((part) => part === 0)) return true; // ::
  if (groups.slice(0, 7).every((part) => part === 0) && v6(7) === 1) return true; // ::1
  if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
  if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link-local
  if ((first & 0xffc0) === 0xfec0) return true; // fec0::/10 site-local (deprecated)
  if ((first & 0xff00) === 0xff00) return true; // multicast
  if (first === 0x2001 && v6(1) === 0x0db8) return true; // documentation
  if (first === 0x0064 && v6(1) === 0xff9b) return true; // NAT64: an IPv4 address behind it
  if (first === 0x2001 && v6(1) === 0) return true; // Teredo: an IPv4 address hidden in it
  if (first === 0x2002) return privateV4([v6(1) >> 8, v6(1) & 0xff, v6(2) >> 8, v6(2) & 0xff]); // 6to4
  return false;
}

function privateV4(bytes: readonly number[]): boolean {
  const [a = 0, b = 0, c = 0] = bytes;
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0 && (c === 0 || c === 2)) || // protocol assignments, documentation
    (a === 198 && (b === 18 || b === 19)) ||
    a >= 224
  );
}

function ipv4Of(text: string): number[] | undefined {
  const parts = text.split(".");
  if (parts.length !== 4 || !parts.every((part) => /^\d{1,3}$/.test(part))) return undefined;
  const bytes = parts.map(Number);
  return bytes.every((byte) => byte <= 255) ? bytes : undefined;
}

/** The eight 16-bit groups of an IPv6 address, or undefined when `text` is not one. */
function ipv6Of(text: string): number[] | undefined {
  if (!text.includes(":")) return undefined;
  let body = text.split("%")[0] ?? "";
  let tail: number[] = [];
  const lastColon = body.lastIndexOf(":");
  const v4 = ipv4Of(body.slice(lastColon + 1));
  if (v4) {
    const [a = 0, b = 0, c = 0, d = 0] = v4;
    tail = [(a << 8) | b, (c << 8) | d];
    body = `${body.slice(0, lastColon + 1)}0`;
  }
  const halves = body.split("::");
  if (halves.length > 2) return undefined;
  const groups = (half: string) => (half === "" ? [] : half.split(":"));
  const head = groups(halves[0] ?? "");
  const rest = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (v4) (rest.length > 0 ? rest : head).pop();
  const written = head.length + rest.length + tail.length;
  if (halves.length === 1 ? written !== 8 : written > 7) return undefined;
  const parse = (group: string) => (/^[0-9a-f]{1,4}$/i.test(group) ? Number.parseInt(group, 16) : Number.NaN);
  const middle = new Array<number>(8 - written).fill(0);
  const all = [...head.map(parse), ...middle, ...rest.map(parse), ...tail];
  return all.every((group) => !Number.isNaN(group)) ? all : undefined;
}

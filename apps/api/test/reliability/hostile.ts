// Arbitraries for hostile input: what an attacker, a broken client or a fuzzer sends. Values mix known
// attack strings (SQL, FTS5 syntax, search operators at their edges), control characters, unicode,
// numbers where they do not fit, and lengths past every limit; percent-encoding is sometimes broken.
import fc from "fast-check";

/** Runs per property; FUZZ_RUNS raises it for a long local hunt, CI keeps the default short. */
export const FUZZ_RUNS = Number(process.env.FUZZ_RUNS) || 20;

const ATTACKS = [
  "' OR 1=1 --",
  '"; DROP TABLE usage; --',
  "1; DELETE FROM accounts",
  "1 UNION SELECT hash FROM api_keys",
  "NEAR(a b, 3)",
  "a* OR b*",
  '"unterminated',
  '""',
  "(((((((((((a",
  ")",
  "-",
  "--",
  "OR",
  "AND NOT",
  "^a",
  "text:a",
  "{text author}: a",
  "*",
  "from:",
  "from:a OR from:",
  "lang:",
  "since:2026-13-45",
  "until:0000-00-00",
  "min_faves:-1",
  "min_retweets:99999999999999999999",
  "#",
  "$",
  "filter:",
  "-filter:replies",
  "-(-(-a))",
  "\u0000",
  "a\u0000b",
  "\u0001\u001f\u007f",
  "\r\n",
  "😀",
  "\u202e\u200b\ufeff",
  "𝒳𝒴",
  "ｃｏｆｆｅｅ",
  "0",
  "-1",
  "-0",
  "1e309",
  "1.5",
  "0.0",
  "NaN",
  "Infinity",
  "0x10",
  " 1",
  "1 ",
  "",
  " ",
  "9".repeat(40),
  "18446744073709551616",
  "9007199254740993",
  "1,2,,3",
  ",".repeat(200),
  "1,".repeat(150),
  "a".repeat(600),
  "x".repeat(9000),
];

/** Text that is not percent-encoded: malformed escapes, invalid UTF-8, encoded separators. */
export const RAW_FRAGMENTS = [
  "%",
  "%zz",
  "%0",
  "%00",
  "%C3%28",
  "%FF%FE",
  "%2F..%2F",
  "%2e%2e",
  "+",
  "%26",
  "%3D",
  "%E2%80",
];

const number = fc.oneof(
  fc.integer().map(String),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.double().map(String),
);

export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...ATTACKS),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: "binary", maxLength: 30 }),
  number,
  fc.array(fc.constantFrom(...ATTACKS), { minLength: 2, maxLength: 4 }).map((parts) => parts.join(" ")),
);

/** Lone surrogates replaced, as String#toWellFormed does: encodeURIComponent throws on them. */
function wellFormed(text: string): string {
  return text.replace(/\p{Cs}/gu, "\uFFFD");
}

/** A value as it goes in a URL: encoded (lone surrogates made well-formed), or raw malformed text. */
export const urlValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: hostileValue.map((value) => encodeURIComponent(wellFormed(value))) },
  { weight: 1, arbitrary: fc.constantFrom(...RAW_FRAGMENTS) },
);

/** A query string over `names` (the endpoint's own, so validation is reached) and stray names, repeats included. */
export function hostileQuery(names: readonly string[]): fc.Arbitrary<string> {
  const name = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...names, "next_token", "limit") },
    { weight: 1, arbitrary: fc.string({ maxLength: 12 }).map((text) => encodeURIComponent(wellFormed(text))) },
  );
  return fc
    .array(fc.tuple(name, urlValue), { maxLength: 6 })
    .map((pairs) => pairs.map(([key, value]) => `${key}=${value}`).join("&"));
}

/** The path of `template` with each `{param}` replaced by a hostile value or, sometimes, a valid one. */
export function hostilePath(template: string, valid: Record<string, string>): fc.Arbitrary<string> {
  const names = [...template.matchAll(/\{(\w+)\}/g)].map((match) => match[1] as string);
  const values = names.map((name) =>
    fc.oneof({ weight: 1, arbitrary: fc.constant(valid[name] ?? "1") }, { weight: 3, arbitrary: urlValue }),
  );
  return fc
    .tuple(...values)
    .map((chosen) => names.reduce((path, name, index) => path.replace(`{${name}}`, chosen[index] as string), template));
}

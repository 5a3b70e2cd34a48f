// The most expensive searches a client can send: negations and numeric filters that no index serves,
// phrases and negations of the commonest words. The flood test sends them to check that every answer
// stays bounded and billed; `bun run bench` to measure what they cost other customers' lookups.
export const EXPENSIVE_SEARCHES = [
  "-the min_faves:999999999",
  "the min_faves:999999999",
  "the -the",
  '"the the the"',
  "-a -the -to min_retweets:999999",
  "(the OR a OR to) -the -a -to",
];

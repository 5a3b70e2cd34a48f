// What every command shares: the usage text, the two kinds of failure and argument parsing that turns
// any mistake into a usage error before anything is opened or written.
export const USAGE = `Usage: bun run admin <command>

Commands:
  keys create [--credits N] [--name NAME]      create an account (1000 credits by default) and an API key;
                                               the key is printed once, alone on the last line of stdout
  keys create --account ACCOUNT_ID [--name NAME]
                                               add a key to an existing account
    either form: [--limit N [--per total|day]] [--expires 2027-01-31]
                                               the key may spend at most N credits (in total, the default,
                                               or per UTC day) and is refused from the expiry on
  keys list [--account ACCOUNT_ID]             list keys (their prefixes, never their secrets)
  keys revoke KEY|KEY_ID|PREFIX                revoke a key for good
  credits grant ACCOUNT_ID N [--reason TEXT | --plan NAME]
                                               add N credits to an account; --plan records a
                                               purchase of that plan, as the customer's billing page
                                               lists it
  usage ACCOUNT_ID [--days N] [--limit N]      balance, credits spent per day, latest requests
  fixtures build [--tweets N] [--seed SEED]    rebuild the social world from the fixture generator
                                               (default 20000 tweets, at least 1000); keys and credits stay
  import FILE... [--format auto|pages|tweets|users] [--strict]
                                               add X API v2 pages or tweet/user objects (JSON Lines,
                                               plain or .gz) to the world; a newer copy replaces an older
                                               one, bad lines are listed and skipped (--strict: a file
                                               with one imports nothing)
  import --follow FILE|- [--format ...]        keep importing a growing JSON Lines file (or standard
                                               input) line by line, resuming after a restart where it
                                               stopped; SIGINT/SIGTERM stop it with the report
  remove tweets|users ID...                    take posts or accounts out of the world, with what depends
                                               on them (a user's posts, follows, lists and memberships; a
                                               post's retweets); ids the world does not hold are listed
  db migrate                                   bring the database's schema up to date (every command and
                                               the server also do so as they open it)
  help                                         show this text

Environment:
  DATABASE_URL   the database: a SQLite file (default file:data/social.db), or PostgreSQL with
                 postgres://user:password@host:5432/database (postgresql:// too)
  WORLD          for the servers: generated (default) builds the fixture world on first start;
                 empty starts with none, for a world of imported data
`;

/** The command line is wrong: exit 2 with the usage text. */
export class UsageError extends Error {}

/** The command line is right but the command cannot be done: exit 1 with the message. */
export class CommandError extends Error {}

/** Runs node:util parseArgs, reporting its complaints (unknown option, missing value, …) as usage errors. */
export function usageErrors<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS")) {
      throw new UsageError(error.message);
    }
    throw error;
  }
}

/** The positional arguments, exactly as many as `names` says. */
export function expectPositionals(positionals: readonly string[], names: readonly string[]): string[] {
  if (positionals.length !== names.length) {
    const expected = names.length === 0 ? "no arguments" : names.join(" ");
    throw new UsageError(`expected ${expected}, got ${positionals.length === 0 ? "none" : positionals.join(" ")}`);
  }
  return [...positionals];
}

/** A whole number of at least `min`, from an option or argument given as text. */
export function parseCount(text: string, what: string, min: number): number {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new UsageError(`${what} must be a whole number of at least ${min}, got ${JSON.stringify(text)}`);
  }
  return value;
}

/** The subcommand of a command group, e.g. `create` in `keys create`. */
export function subcommand<Name extends string>(
  group: string,
  args: readonly string[],
  known: readonly Name[],
): [Name, string[]] {
  const [name, ...rest] = args;
  const found = known.find((candidate) => candidate === name);
  if (found === undefined) {
    throw new UsageError(name === undefined ? `${group} needs a subcommand` : `unknown command ${group} ${name}`);
  }
  return [found, rest];
}

// A real OpenID Provider on loopback for the dashboard tests: the `oidc-provider` package with one
// confidential client and a one-page interaction in place of the package's dev screens, so a browser
// and a plain fetch can both complete it. The person types a username (it becomes the subject) and
// either signs in or refuses; refusing returns `access_denied` to the dashboard like a real provider.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import Provider, { type InteractionResults } from "oidc-provider";

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  close(): Promise<void>;
}

const SCOPE = "openid profile email";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

function interactionPage(uid: string, clientId: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Test identity provider</title></head>
<body><main><h1>Sign in to the test identity provider</h1>
<p>Application: ${escapeHtml(clientId)}</p>
<form method="post" action="/interaction/${escapeHtml(uid)}">
<label for="username">Username</label> <input id="username" name="username" required autocomplete="username">
<button type="submit" name="decision" value="allow">Sign in</button>
<button type="submit" name="decision" value="deny" formnovalidate>Refuse</button>
</form></main></body></html>`;
}

function logoutPage(form: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sign out of the test identity provider</title></head>
<body><main><h1>Sign out of the test identity provider?</h1>${form}
<button type="submit" form="op.logoutForm" value="yes" name="logout">Yes, sign me out</button>
<button type="submit" form="op.logoutForm">No, stay signed in</button></main></body></html>`;
}

async function formBody(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/** Signs in and consents in one step: the test is about the dashboard, not the provider's screens. */
async function finishInteraction(provider: Provider, request: IncomingMessage, response: ServerResponse) {
  const details = await provider.interactionDetails(request, response);
  const form = await formBody(request);
  const username = form.get("username")?.trim() ?? "";
  let result: InteractionResults;
  if (form.get("decision") !== "allow" || username === "") {
    result = { error: "access_denied", error_description: "The person refused to sign in" };
  } else {
    const grant = new provider.Grant({ accountId: username, clientId: String(details.params.client_id) });
    grant.addOIDCScope(SCOPE);
    result = { login: { accountId: username }, consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(request, response, result, { mergeWithLastSubmission: false });
}

async function interaction(provider: Provider, request: IncomingMessage, response: ServerResponse) {
  if (request.method === "POST") return finishInteraction(provider, request, response);
  const details = await provider.interactionDetails(request, response);
  response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  response.end(interactionPage(details.uid, String(details.params.client_id)));
}

/** A fresh RS256 key, instead of the package's development key and its warning. */
async function signingKey(): Promise<JsonWebKey> {
  const pair = await crypto.subtle.generateKey(
    { name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" },
    true,
    ["sign", "verify"],
  );
  return crypto.subtle.exportKey("jwk", pair.privateKey);
}

function listenOnFreePort(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port"));
    });
  });
}

export async function startTestProvider(redirectUri: string): Promise<TestProvider> {
  // The issuer URL names the port, so the socket is bound before the provider is built.
  let handle: (request: IncomingMessage, response: ServerResponse) => void = (_request, response) => {
    response.writeHead(503).end();
  };
  const server: Server = createServer((request, response) => handle(request, response));
  const issuer = `http://127.0.0.1:${await listenOnFreePort(server)}`;
  const clientId = "social-dashboard";
  const clientSecret = `secret-${crypto.randomUUID()}`;
  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: [redirectUri],
        // Where the dashboard's sign-out comes back to, beside its callback.
        post_logout_redirect_uris: [new URL("/dashboard/signed-out", redirectUri).href],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      // RP-Initiated Logout, with the provider's question as a page of its own (the package's default
      // page loads a web font and prints a notice).
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: (context, form) => {
          context.body = logoutPage(form);
        },
      },
    },
    interactions: { url: (_context, interaction) => `/interaction/${interaction.uid}` },
    cookies: { keys: [crypto.randomUUID()] },
    jwks: { keys: [await signingKey()] },
    // Explicit lifetimes (the defaults print a notice on every use): long enough for any test run.
    ttl: { Interaction: 600, Session: 600, Grant: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
    claims: { openid: ["sub"], profile: ["name"], email: ["email"] },
    // Puts the profile claims in the ID token, as the big providers do, so the dashboard can name
    // the account without a userinfo call.
    conformIdTokenClaims: false,
    findAccount: (_context, subject) => ({
      accountId: subject,
      claims: () => ({ sub: subject, name: `Test ${subject}`, email: `${subject}@example.test` }),
    }),
  });
  const providerHandler = provider.callback();
  handle = (request, response) => {
    if (request.url?.startsWith("/interaction/")) {
      interaction(provider, request, response).catch((error: unknown) => {
        response.writeHead(500, { "content-type": "text/plain" });
        response.end(String(error));
      });
      return;
    }
    providerHandler(request, response);
  };
  return {
    issuer,
    clientId,
    clientSecret,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Walks the provider's side of a sign-in without a browser: follows the authorization request to the
 * interaction page, answers it, and returns the URL the provider sends the browser back to.
 */
export async function answerAtProvider(
  authorizationUrl: string,
  answer: { username: string; decision: "allow" | "deny" },
): Promise<URL> {
  const jar = new Map<string, string>();
  const send = async (url: string, init: RequestInit = {}) => {
    const headers = new Headers(init.headers);
    headers.set("cookie", [...jar].map(([name, value]) => `${name}=${value}`).join("; "));
    const response = await fetch(url, { ...init, headers, redirect: "manual" });
    for (const line of response.headers.getSetCookie()) {
      const [pair = ""] = line.split(";");
      const separator = pair.indexOf("=");
      jar.set(pair.slice(0, separator), pair.slice(separator + 1));
    }
    const location = response.headers.get("location");
    if (!location) throw new Error(`expected a redirect from ${url}, got ${response.status}: ${await response.text()}`);
    return new URL(location, url);
  };
  const interaction = await send(authorizationUrl);
  const resume = await send(interaction.href, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(answer).toString(),
  });
  return send(resume.href);
}

// The relying-party side of OpenID Connect, on openid-client: authorization code flow with PKCE (S256),
// state and nonce, and an ID token whose signature, issuer, audience, expiry and nonce the library checks;
// at sign-out, the provider's end-session endpoint where it has one.

import type { OidcSettings } from "@social/composition";
import type { SignInChecks } from "@social/core";
import * as client from "openid-client";

export interface Identity {
  issuer: string;
  subject: string;
  name: string;
}

export const SCOPE = "openid profile email";

/** Why a callback failed, in words fit for the person who was signing in. */
export class SignInError extends Error {
  constructor(
    message: string,
    readonly providerRefused: boolean,
  ) {
    super(message);
  }
}

/** Plain http is accepted only for a provider on this machine (tests, local trials); never across a network. */
function isLoopback(url: URL): boolean {
  return url.protocol === "http:" && ["127.0.0.1", "localhost", "[::1]"].includes(url.hostname);
}

function displayName(claims: client.IDToken): string {
  for (const claim of ["name", "preferred_username", "email"] as const) {
    const value = claims[claim];
    if (typeof value === "string" && value.trim() !== "") return value.trim().slice(0, 200);
  }
  return claims.sub;
}

/** openid-client wraps the failed check (say, `unexpected ID Token "nonce" claim value`) in a generic error. */
function failedCheck(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  return error.cause instanceof Error ? error.cause.message : error.message;
}

export class OidcClient {
  private configuration: Promise<client.Configuration> | undefined;

  constructor(
    private readonly settings: OidcSettings,
    private readonly redirectUri: string,
  ) {}

  /** Discovery runs on first use and is retried after a failure, so a provider that is down at start-up costs nothing. */
  private discover(): Promise<client.Configuration> {
    if (!this.configuration) {
      const issuer = new URL(this.settings.issuer);
      this.configuration = client
        .discovery(
          issuer,
          this.settings.clientId,
          this.settings.clientSecret,
          undefined,
          isLoopback(issuer) ? { execute: [client.allowInsecureRequests] } : undefined,
        )
        .catch((error: unknown) => {
          this.configuration = undefined;
          throw error;
        });
    }
    return this.configuration;
  }

  async start(): Promise<{ url: URL; checks: SignInChecks }> {
    const configuration = await this.discover();
    const checks = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
    };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: SCOPE,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: "S256",
      state: checks.state,
      nonce: checks.nonce,
    });
    return { url, checks };
  }

  /** Checks the authorization response, redeems the code and verifies the ID token. */
  async finish(callbackUrl: URL, checks: SignInChecks): Promise<Identity> {
    const configuration = await this.discover();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(configuration, callbackUrl, {
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        pkceCodeVerifier: checks.codeVerifier,
        idTokenExpected: true,
      });
    } catch (error) {
      if (error instanceof client.AuthorizationResponseError) {
        const said = error.error_description ?? error.error;
        throw new SignInError(`The identity provider did not sign you in: ${said}`, true);
      }
      throw new SignInError(`The sign-in response could not be verified (${failedCheck(error)})`, false);
    }
    const claims = tokens.claims();
    if (!claims) throw new SignInError("The identity provider sent no ID token", false);
    return { issuer: claims.iss, subject: claims.sub, name: displayName(claims) };
  }

  /**
   * Where the browser ends its session at the provider (OpenID Connect RP-Initiated Logout), coming
   * back to `returnTo`; undefined when the provider offers no end-session endpoint (or cannot be
   * reached to say), and the sign-out ends here alone.
   */
  async endSessionUrl(returnTo: string): Promise<URL | undefined> {
    let configuration: client.Configuration;
    try {
      configuration = await this.discover();
    } catch {
      return undefined;
    }
    if (!configuration.serverMetadata().end_session_endpoint) return undefined;
    return client.buildEndSessionUrl(configuration, {
      post_logout_redirect_uri: returnTo,
      // client_id in place of an id_token_hint (RP-Initiated Logout 1.0 allows either): no ID token is kept.
      client_id: this.settings.clientId,
    });
  }
}

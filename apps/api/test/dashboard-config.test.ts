// The dashboard's settings from the environment: sign-in is configured completely or not at all.
import { describe, expect, test } from "bun:test";
import { configFromEnv } from "../src/config.ts";

const PROVIDER = {
  OIDC_ISSUER: "https://accounts.example",
  OIDC_CLIENT_ID: "dashboard",
  OIDC_CLIENT_SECRET: "s3cret",
};

describe("dashboard configuration", () => {
  test("without OIDC settings the server starts with sign-in off", () => {
    const config = configFromEnv({});
    expect(config.oidc).toBeUndefined();
    expect(config.sessionSecret).toBeUndefined();
  });

  test("the three OIDC settings and the session secret are read", () => {
    const config = configFromEnv({ ...PROVIDER, SESSION_SECRET: "session" });
    expect(config.oidc).toEqual({ issuer: "https://accounts.example", clientId: "dashboard", clientSecret: "s3cret" });
    expect(config.sessionSecret).toBe("session");
  });

  test("a partial or malformed provider configuration stops the start", () => {
    expect(() => configFromEnv({ OIDC_ISSUER: PROVIDER.OIDC_ISSUER })).toThrow("must be set together");
    expect(() => configFromEnv({ ...PROVIDER, OIDC_CLIENT_SECRET: "" })).toThrow("must be set together");
    expect(() => configFromEnv({ ...PROVIDER, OIDC_ISSUER: "accounts" })).toThrow("OIDC_ISSUER must be a URL");
  });
});

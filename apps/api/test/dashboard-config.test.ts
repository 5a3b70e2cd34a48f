// The dashboard's settings from the environment: sign-in is configured completely or not at all; the
// request log's days and the billing settings are checked before the server starts.
import { describe, expect, test } from "bun:test";
import { readServerConfig } from "@social/composition";

const PROVIDER = {
  OIDC_ISSUER: "https://accounts.example",
  OIDC_CLIENT_ID: "dashboard",
  OIDC_CLIENT_SECRET: "s3cret",
};

describe("dashboard configuration", () => {
  test("without OIDC settings the server starts with sign-in off", () => {
    const config = readServerConfig({});
    expect(config.oidc).toBeUndefined();
    expect(config.sessionSecret).toBeUndefined();
  });

  test("the three OIDC settings and the session secret are read", () => {
    const secret = "a-session-secret-of-32-characters!";
    const config = readServerConfig({ ...PROVIDER, SESSION_SECRET: secret });
    expect(config.oidc).toEqual({ issuer: "https://accounts.example", clientId: "dashboard", clientSecret: "s3cret" });
    expect(config.sessionSecret).toBe(secret);
  });

  test("a configured secret shorter than 32 characters stops the start", () => {
    expect(() => readServerConfig({ SESSION_SECRET: "session" })).toThrow("SESSION_SECRET must be at least 32");
    expect(() => readServerConfig({ TOKEN_SECRET: "short" })).toThrow("TOKEN_SECRET must be at least 32");
  });

  test("a partial or malformed provider configuration stops the start", () => {
    expect(() => readServerConfig({ OIDC_ISSUER: PROVIDER.OIDC_ISSUER })).toThrow("must be set together");
    expect(() => readServerConfig({ ...PROVIDER, OIDC_CLIENT_SECRET: "" })).toThrow("must be set together");
    expect(() => readServerConfig({ ...PROVIDER, OIDC_ISSUER: "accounts" })).toThrow("OIDC_ISSUER must be a URL");
  });

  test("REQUEST_LOG_DAYS: 30 days by default, 0 for no log, anything else but whole days stops the start", () => {
    expect(readServerConfig({}).requestLogDays).toBe(30);
    expect(readServerConfig({ REQUEST_LOG_DAYS: "0" }).requestLogDays).toBe(0);
    expect(readServerConfig({ REQUEST_LOG_DAYS: "90" }).requestLogDays).toBe(90);
    for (const wrong of ["-1", "1.5", "a month", "99999"]) {
      expect(() => readServerConfig({ REQUEST_LOG_DAYS: wrong })).toThrow("REQUEST_LOG_DAYS must be a whole number");
    }
  });

  test("the billing settings are read and checked at start", () => {
    expect(readServerConfig({}).billing).toEqual({ plans: [] });
    const billing = readServerConfig({
      BILLING_URL: "https://pay.example/buy",
      BILLING_PLANS: '[{"name":"Starter","credits":10000,"price":"$10"}]',
    }).billing;
    expect(billing).toEqual({
      url: "https://pay.example/buy",
      plans: [{ name: "Starter", credits: 10000, price: "$10" }],
    });
    expect(() => readServerConfig({ BILLING_URL: "ftp://pay.example" })).toThrow("BILLING_URL must be an http(s) URL");
  });
});

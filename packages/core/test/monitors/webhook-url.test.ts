// Where a monitor may deliver: a webhook must not reach the operator's own network unless allowed.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isPrivateAddress, webhookUrlProblem } from "../../src/monitors/webhook-url.ts";

describe("webhook URLs", () => {
  it("refuses loopback, private, link-local and special addresses in every spelling", () => {
    const refused = [
      "127.0.0.1",
      "10.1.2.3",
      "192.168.0.1",
      "172.16.5.5",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fe80::1",
      "fd00::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::127.0.0.1",
      "64:ff9b::a00:1",
      // 6to4 and Teredo carry an IPv4 address (Teredo's hidden): a host with such a tunnel reaches it.
      "2002:a9fe:a9fe::",
      "2002:7f00:1::1",
      "2001:0:4136:e378:8000:63bf:3fff:fdd2",
    ];
    for (const address of refused) assert.equal(isPrivateAddress(address), true, address);
  });

  it("lets public addresses and hostnames through", () => {
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "172.32.0.1",
      "2606:4700::1111",
      "::ffff:8.8.8.8",
      "2002:808:808::1",
      "2001:4860::8888",
      "example.com",
    ]) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });

  it("refuses only the special-purpose blocks of 192.0.0.0/16, not its public addresses", () => {
    for (const address of ["192.0.0.8", "192.0.2.10", "::ffff:192.0.2.10"]) {
      assert.equal(isPrivateAddress(address), true, address);
    }
    // Public hosting (192.0.64.0/18 serves sites and their hooks) is a receiver like any other.
    for (const address of ["192.0.78.9", "192.0.64.1", "192.0.1.1"]) {
      assert.equal(isPrivateAddress(address), false, address);
    }
  });

  it("checks the URL's scheme, credentials and host", () => {
    assert.equal(webhookUrlProblem("https://example.com/hook", false), undefined);
    for (const url of [
      "http://[::1]:8080/x",
      "http://localhost/x",
      "http://localhost./x",
      "http://api.localhost./x",
      "http://api.localhost/x",
      "http://2130706433/x",
    ]) {
      assert.match(webhookUrlProblem(url, false) ?? "", /public address/, url);
    }
    assert.match(webhookUrlProblem("ftp://example.com/", true) ?? "", /http or https/);
    assert.match(webhookUrlProblem("https://user:pw@example.com/", true) ?? "", /user name or password/);
    assert.match(webhookUrlProblem("not a url", true) ?? "", /valid absolute URL/);
  });

  it("lets the operator allow private addresses (MONITOR_ALLOW_PRIVATE)", () => {
    assert.equal(webhookUrlProblem("http://127.0.0.1:9999/hook", true), undefined);
  });
});

// The key check that opens a connection. Tool calls authenticate again inside executeRead (a key can
// be revoked mid-session); this check exists so that a connection with a bad key fails at once
// instead of listing tools that could never be called.
import { ApiError, hashApiKey, type Ledger } from "@social/core";

/** The key itself when it is active, else the 401 error; `howToSend` completes the message. */
export async function checkConnectionKey(
  ledger: Ledger,
  apiKey: string | undefined,
  howToSend: string,
): Promise<string | ApiError> {
  if (!apiKey) return new ApiError("invalid_api_key", `Missing API key: ${howToSend}`);
  const check = await ledger.checkKey(await hashApiKey(apiKey));
  switch (check.status) {
    case "active":
      return apiKey;
    case "revoked":
      return new ApiError("revoked_api_key", "This API key has been revoked: create a new one in the dashboard");
    case "unknown":
      return new ApiError("invalid_api_key", `Invalid API key: ${howToSend}`);
  }
}

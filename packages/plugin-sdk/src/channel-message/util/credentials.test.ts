// verifyCredentials: a 401/403 from the identity call stops the account with the fix; anything
// else is rethrown for the gateway's retry.
import { describe, expect, it } from "vitest";
import { ChannelAccountError, isChannelAccountError } from "../account.ts";
import { verifyCredentials } from "./credentials.ts";
import { platformErrors } from "./platform-errors.ts";

const { ApiError, NetworkError } = platformErrors("Acme");
const opts = { channel: "acme", accountId: "main", fix: "check ACME_TOKEN" };

describe("verifyCredentials", () => {
  it("returns what the identity call answered", async () => {
    expect(await verifyCredentials(async () => ({ id: "b1" }), opts)).toEqual({ id: "b1" });
  });

  it.each([401, 403])(
    "turns a %i into ChannelAccountError naming the status and the fix",
    async (status) => {
      const error = await verifyCredentials(async () => {
        throw new ApiError("GET /v1/me", { status, platformCode: "invalid_token" });
      }, opts).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ChannelAccountError);
      expect(isChannelAccountError(error)).toBe(true);
      expect(error).toMatchObject({ channel: "acme", accountId: "main", fix: "check ACME_TOKEN" });
      expect((error as Error).message).toMatch(
        new RegExp(
          `acme/main: the credentials were rejected \\(${status} invalid_token\\) → fix: check ACME_TOKEN`,
        ),
      );
    },
  );

  it("rethrows other answers and network errors as they are (the gateway retries them)", async () => {
    const down = new ApiError("GET /v1/me", { status: 503 });
    await expect(verifyCredentials(async () => Promise.reject(down), opts)).rejects.toBe(down);
    const refused = new NetworkError("GET /v1/me", new Error("ECONNREFUSED"));
    await expect(verifyCredentials(async () => Promise.reject(refused), opts)).rejects.toBe(
      refused,
    );
    const notFound = new ApiError("GET /v1/me", { status: 404 });
    await expect(
      verifyCredentials(async () => Promise.reject(notFound), { ...opts, statuses: [401, 404] }),
    ).rejects.toBeInstanceOf(ChannelAccountError);
  });
});

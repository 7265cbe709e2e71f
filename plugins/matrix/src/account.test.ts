/**
 * The account's identity: `/whoami`'s user id compared case-exactly, the fixed device id, a
 * rejected token stopping the account with the fix.
 */
import { isChannelAccountError } from "@herald/plugin-sdk/channel-message";
import { eventually, openTestRun } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { checkMatrixCredentials, whoami } from "./account.ts";
import { matrixConfigSchema } from "./config.ts";
import { MatrixEncryptedRoomError } from "./errors.ts";
import { createMatrixAccount } from "./index.ts";
import { FAKE_BOT, FakeHomeserver } from "./testing/FakeHomeserver.ts";

async function fake() {
  const f = await FakeHomeserver.start();
  onTestFinished(() => f.close());
  return f;
}

const config = (url: string, extra: object = {}) =>
  matrixConfigSchema.parse({ homeserverUrl: url, deviceId: FAKE_BOT.deviceId, ...extra });

describe("whoami", () => {
  it("returns the canonical user id and the device, as the server spells them", async () => {
    const f = await fake();
    expect(await whoami(config(f.url), FAKE_BOT.accessToken, "main")).toEqual({
      userId: FAKE_BOT.userId,
      deviceId: FAKE_BOT.deviceId,
    });
  });

  it("compares the configured user id case-exactly: @Herald:fake.test is not @herald:fake.test", async () => {
    const f = await fake();
    const error = await whoami(
      config(f.url, { userId: "@Herald:fake.test" }),
      FAKE_BOT.accessToken,
      "main",
    ).catch((e: unknown) => e);
    expect(isChannelAccountError(error)).toBe(true);
    expect(String((error as Error).message)).toContain("@herald:fake.test");
  });

  it("refuses a token of another device: txnIds are deduplicated per device", async () => {
    const f = await fake();
    const error = await whoami(
      { ...config(f.url), deviceId: "OTHER" },
      FAKE_BOT.accessToken,
      "main",
    ).catch((e: unknown) => e);
    expect(isChannelAccountError(error)).toBe(true);
    expect((error as { fix: string }).fix).toContain(FAKE_BOT.deviceId);
  });

  it("stops the account on M_UNKNOWN_TOKEN with the variable to fix, never echoing the token", async () => {
    const f = await fake();
    const error = await whoami(config(f.url), "syt_wrong_token_0123456789", "main").catch(
      (e: unknown) => e,
    );
    expect(isChannelAccountError(error)).toBe(true);
    expect((error as { fix: string }).fix).toContain("MATRIX_ACCESS_TOKEN");
    expect(String((error as Error).message)).not.toContain("syt_wrong_token_0123456789");
    const doctor = await checkMatrixCredentials(config(f.url), {
      secret: () => "syt_wrong_token_0123456789",
    });
    expect(doctor.ok).toBe(false);
    expect(doctor.detail).not.toContain("syt_wrong_token_0123456789");
  });
});

describe("createMatrixAccount", () => {
  it("opens the account with /whoami's identity; its receiver and adapter share what they learn (an encrypted room refuses sends)", async () => {
    const f = await fake();
    const room = f.createRoom({ encrypted: true });
    const run = await openTestRun({ adapters: [], accountId: "main" });
    onTestFinished(() => run.close());
    const controller = new AbortController();
    const account = await createMatrixAccount(config(f.url, { sync: { pollTimeoutMs: 300 } }), {
      accountId: "main",
      logger: run.logger,
      clock: Date.now,
      secret: (name) => {
        expect(name).toBe("MATRIX_ACCESS_TOKEN");
        return FAKE_BOT.accessToken;
      },
      sink: run.sink("matrix", "main"),
      signal: controller.signal,
    });
    run.runtime.addAdapter(account.adapter, "main");
    expect(account.identity).toEqual({ id: FAKE_BOT.userId, name: FAKE_BOT.userId });
    await account.receiver?.start?.();
    onTestFinished(() => account.receiver?.stop?.());
    await eventually(
      () => account.receiver?.health?.().state,
      (state) => state === "up",
      { what: "the receiver up" },
    );
    const ctx = {
      channel: "matrix",
      message: run.message("matrix", { kind: "group", id: room.id }, "hi"),
      attempt: 1,
      idempotencyKey: "k",
      unitIdempotencyKey: "k#0",
      signal: controller.signal,
      log: run.logger,
    };
    const batch = await account.adapter.render.render(ctx.message, {
      idempotencyKey: "k",
      capabilities: account.adapter.capabilities,
    });
    await expect(account.adapter.send.send(ctx, batch.units[0] as never)).rejects.toBeInstanceOf(
      MatrixEncryptedRoomError,
    );
    await account.close();
  });
});

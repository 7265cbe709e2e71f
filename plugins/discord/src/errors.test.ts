/**
 * classifyError on what the real `@discordjs/rest` client throws against the fake: Discord's
 * JSON codes, 429 waits (body seconds vs discord.js ms, converted once), 502 vs 500/504, and
 * network failures with their evidence.
 */
import type { PlatformFault } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { DiscordRest } from "./client.ts";
import { classifyError, DiscordApiError, DiscordNetworkError } from "./errors.ts";
import { FAKE_BOT, FakeDiscord } from "./testing/FakeDiscord.ts";
import { type FakeRateLimitShape, rateLimitFault } from "./testing/fakeRateLimits.ts";

async function failureOf(fault: PlatformFault | "refused" | "edge", timeoutMs = 5_000) {
  const fake = await FakeDiscord.start();
  onTestFinished(() => fake.close());
  const channel = fake.createChannel({ type: "text" });
  const rest = new DiscordRest({ token: FAKE_BOT.token, apiBase: fake.apiBase, timeoutMs });
  let restore: (() => Promise<void>) | undefined;
  if (fault === "refused") restore = await fake.faults.refuseConnections();
  else if (fault === "edge") fake.restrictAddress(3);
  else fake.failNext(fault, { op: "send" });
  try {
    await rest.call({
      method: "POST",
      route: `/channels/${channel.id}/messages`,
      body: { content: "x", nonce: "n1", enforce_nonce: true },
    });
  } catch (error) {
    await restore?.();
    return { error, failure: classifyError(error, FAKE_BOT.token), fake, channel };
  }
  throw new Error("the call did not fail");
}

const discordError = (status: number, code: number, message: string, errors?: unknown) =>
  ({
    kind: "status",
    status,
    body: { code, message, ...(errors ? { errors } : {}) },
  }) as const;

describe("classifyError", () => {
  it("429 with retry_after 0.3 in the body: rate_limit, not_dispatched, 300 ms (seconds converted once)", async () => {
    const { failure, error } = await failureOf({ kind: "rate_limit", retryAfterMs: 300 });
    expect(error).toBeInstanceOf(DiscordApiError);
    expect(failure).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      retryAfterMs: 300,
      rateLimitScope: "route",
    });
  });

  it("429 with only a Retry-After header: discord.js's ms are taken as they are (no second ×1000)", async () => {
    const { failure } = await failureOf({ kind: "rate_limit", retryAfterMs: 2_000, via: "header" });
    expect(failure).toMatchObject({ kind: "rate_limit", evidence: "not_dispatched" });
    expect(failure.retryAfterMs).toBe(2_000);
  });

  it("a global 429 pauses the whole account", async () => {
    const { failure } = await failureOf({
      kind: "status",
      status: 429,
      body: { message: "You are being rate limited.", retry_after: 1.5, global: true },
      headers: { "retry-after": "2", "x-ratelimit-global": "true", "x-ratelimit-scope": "global" },
    });
    expect(failure).toMatchObject({
      kind: "rate_limit",
      rateLimitScope: "account",
      retryAfterMs: 1_500,
    });
  });

  describe("C45 · every 429 shape Discord and its edge send", () => {
    const shapes: Array<
      [FakeRateLimitShape, number, "account" | "route", number | undefined, string]
    > = [
      ["user", 0.3, "route", 300, "the documented per-route 429"],
      ["shared", 1.337, "route", 1_337, "a resource's limit (scope shared) holds that route only"],
      ["global", 1.5, "account", 1_500, "the documented global 429 (headers and body)"],
      [
        "global_body_only",
        1.25,
        "account",
        1_250,
        "global: true with no X-RateLimit-Scope or -Global header, retry_after a float",
      ],
      ["header_only", 2, "route", 2_000, "only a Retry-After header carries the wait"],
      ["no_wait", 0, "route", undefined, "no wait anywhere: herald backs off (never a 0 ms retry)"],
    ];
    for (const [shape, seconds, scope, waitMs, what] of shapes) {
      it(`${shape}: ${what}`, async () => {
        const { failure } = await failureOf(
          rateLimitFault(shape as Exclude<FakeRateLimitShape, "edge">, seconds),
        );
        expect(failure).toMatchObject({
          kind: "rate_limit",
          evidence: "not_dispatched",
          rateLimitScope: scope,
        });
        expect(failure.retryAfterMs).toBe(waitMs);
      });
    }

    it("edge: Cloudflare's HTML 429 restricts the address, so the whole account waits its Retry-After", async () => {
      const { failure, fake } = await failureOf("edge");
      expect(failure).toMatchObject({
        kind: "rate_limit",
        evidence: "not_dispatched",
        rateLimitScope: "account",
        retryAfterMs: 3_000,
      });
      expect(failure.message).toContain("Cloudflare");
      expect(fake.edgeRefusals).toHaveLength(1);
    });
  });

  it("502 never reached the API: transient, not_dispatched", async () => {
    const { failure } = await failureOf({
      kind: "status",
      status: 502,
      body: "<html>bad gateway</html>",
    });
    expect(failure).toMatchObject({ kind: "transient", evidence: "not_dispatched" });
  });

  for (const status of [500, 503, 504]) {
    it(`${status} may have run: transient, maybe_sent`, async () => {
      const { failure } = await failureOf({ kind: "status", status, code: "internal_error" });
      expect(failure).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    });
  }

  const table: Array<[number, number, string, string]> = [
    [400, 50035, "Invalid Form Body", "invalid_payload"],
    [404, 10008, "Unknown Message", "not_found"],
    [404, 10003, "Unknown Channel", "not_found"],
    [403, 50013, "Missing Permissions", "permission"],
    [403, 50001, "Missing Access", "permission"],
    [400, 50008, "Cannot send messages in a non-text channel", "invalid_payload"],
    [400, 40058, "Cannot send messages in a forum channel", "invalid_payload"],
    [401, 0, "401: Unauthorized", "auth"],
  ];
  for (const [status, code, message, kind] of table) {
    it(`${status} ${code} ${message}: ${kind}, not_dispatched, code in the name`, async () => {
      const { failure, error } = await failureOf(discordError(status, code, message));
      expect(failure).toMatchObject({ kind, evidence: "not_dispatched" });
      if (code !== 0) {
        expect((error as Error).name).toBe(`DiscordApiError[${code}]`);
        expect(failure.platformCode).toBe(String(code));
      }
    });
  }

  it("50035 flattens the field errors into the message", async () => {
    const { failure } = await failureOf(
      discordError(400, 50035, "Invalid Form Body", {
        embeds: {
          "0": {
            description: {
              _errors: [
                { code: "BASE_TYPE_MAX_LENGTH", message: "Must be 4096 or fewer in length." },
              ],
            },
          },
        },
      }),
    );
    expect(failure.message).toContain("embeds[0].description: BASE_TYPE_MAX_LENGTH");
  });

  it("40062 (resource rate limited): a short bounded retry, never maybe_sent", async () => {
    const { failure } = await failureOf(
      discordError(400, 40062, "Service resource is being rate limited"),
    );
    expect(failure).toMatchObject({
      kind: "transient",
      evidence: "not_dispatched",
      retryAfterMs: 1_000,
    });
  });

  it("refused connection: transient, not_dispatched", async () => {
    const { failure, error } = await failureOf("refused");
    expect(error).toBeInstanceOf(DiscordNetworkError);
    expect(failure).toMatchObject({
      kind: "transient",
      evidence: "not_dispatched",
      platformCode: "refused",
    });
  });

  it("reset after Discord stored the message: transient, maybe_sent", async () => {
    const { failure, fake, channel } = await failureOf({ kind: "reset_after_accept" });
    expect(failure).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
    expect(fake.messages(channel.id).map((m) => m.text)).toEqual(["x"]);
  });

  it("a timeout: transient, maybe_sent", async () => {
    const { failure } = await failureOf({ kind: "delay", delayMs: 1_500 }, 300);
    expect(failure).toMatchObject({ kind: "transient", evidence: "maybe_sent" });
  });

  it("the token never appears in a classified message", async () => {
    const { failure } = await failureOf(discordError(400, 50035, `bad token ${FAKE_BOT.token}`));
    expect(failure.message).not.toContain(FAKE_BOT.token);
  });
});

/**
 * 429 answers in the shapes errors.test.ts does not send ([H22] item 3: "rate-limit answers in
 * less common shapes", CASES C45), through the real `@discordjs/rest` client against the fake:
 * only `X-RateLimit-Reset-After` carries the wait; a body `retry_after` of 0 (no wait: herald
 * backs off, never a 0 ms retry); the global limit named by one header alone
 * (`X-RateLimit-Global`, or `X-RateLimit-Scope: global`) pauses the account; a 429 with a
 * Discord JSON `code` keeps it while its platform code stays `429`.
 */
import type { PlatformFault } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { DiscordRest } from "./client.ts";
import { classifyError, DiscordApiError } from "./errors.ts";
import { FAKE_BOT, FakeDiscord } from "./testing/FakeDiscord.ts";

async function failureOf(fault: PlatformFault) {
  const fake = await FakeDiscord.start();
  onTestFinished(() => fake.close());
  const channel = fake.createChannel({ type: "text" });
  const rest = new DiscordRest({ token: FAKE_BOT.token, apiBase: fake.apiBase, timeoutMs: 5_000 });
  fake.failNext(fault, { op: "send" });
  try {
    await rest.call({
      method: "POST",
      route: `/channels/${channel.id}/messages`,
      body: { content: "x", nonce: "n1", enforce_nonce: true },
    });
  } catch (error) {
    return { error, failure: classifyError(error, FAKE_BOT.token) };
  }
  throw new Error("the call did not fail");
}

const limited = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
  ({
    kind: "status",
    status: 429,
    body: { message: "You are being rate limited.", ...body },
    headers,
  }) as const;

describe("C45 · less common 429 shapes", () => {
  it("only X-RateLimit-Reset-After names the wait (no body retry_after, no Retry-After): its seconds, in ms", async () => {
    const { failure } = await failureOf(
      limited(
        { global: false },
        { "x-ratelimit-reset-after": "2.500", "x-ratelimit-scope": "user" },
      ),
    );
    expect(failure).toMatchObject({
      kind: "rate_limit",
      evidence: "not_dispatched",
      rateLimitScope: "route",
    });
    expect(failure.retryAfterMs).toBe(2_500);
  });

  it("the body's retry_after wins over Retry-After and Reset-After (seconds, a float, converted once)", async () => {
    const { failure } = await failureOf(
      limited(
        { retry_after: 0.75, global: false },
        { "retry-after": "5", "x-ratelimit-reset-after": "9.000", "x-ratelimit-scope": "user" },
      ),
    );
    expect(failure.retryAfterMs).toBe(750);
  });

  it("retry_after 0 and no header: no wait (herald backs off), never a 0 ms retry", async () => {
    const { failure } = await failureOf(limited({ retry_after: 0, global: false }));
    expect(failure).toMatchObject({ kind: "rate_limit", evidence: "not_dispatched" });
    expect(failure).not.toHaveProperty("retryAfterMs");
  });

  it("the global limit named only by X-RateLimit-Global, or only by X-RateLimit-Scope: global, pauses the account", async () => {
    for (const headers of [
      { "retry-after": "1", "x-ratelimit-global": "true" },
      { "retry-after": "1", "x-ratelimit-scope": "global" },
    ]) {
      const { failure, error } = await failureOf(limited({ retry_after: 1 }, headers));
      expect(failure).toMatchObject({ kind: "rate_limit", rateLimitScope: "account" });
      expect(error).toBeInstanceOf(DiscordApiError);
      expect((error as DiscordApiError).edge).toBe(false);
    }
    // A per-route 429 with a scope header that is not global stays on its route.
    const { failure } = await failureOf(
      limited({ retry_after: 1, global: false }, { "x-ratelimit-scope": "shared" }),
    );
    expect(failure.rateLimitScope).toBe("route");
  });

  it("a 429 carrying a Discord JSON code keeps it; the platform code is 429, the message Discord's", async () => {
    const { failure, error } = await failureOf(
      limited(
        {
          retry_after: 1.2,
          global: false,
          code: 20028,
          message:
            "The write action you are performing on the channel has hit the write rate limit.",
        },
        { "x-ratelimit-scope": "shared" },
      ),
    );
    expect(error).toBeInstanceOf(DiscordApiError);
    expect((error as DiscordApiError).discordCode).toBe(20028);
    expect((error as DiscordApiError).scope).toBe("shared");
    expect(failure).toMatchObject({
      kind: "rate_limit",
      platformCode: "429",
      retryAfterMs: 1_200,
    });
    expect(failure.message).toContain("write rate limit");
  });
});

import { describe, expect, it } from "vitest";
import type { ChannelMessageAdapter } from "../adapter/types.ts";
import type { RateLimitCall, RateLimitOperation, RateLimitScope } from "../message/rateLimit.ts";
import { defaultRateLimitRoute, RateLimitScheduler, rateLimitCall } from "./RateLimitScheduler.ts";

// Every test drives the scheduler with explicit epoch-ms timestamps (a fake clock).

const telegram: RateLimitScope[] = [
  { scope: "account", limit: 30, intervalMs: 1_000 },
  { scope: "chat", limit: 1, intervalMs: 1_000 },
  { scope: "chat", limit: 20, intervalMs: 60_000, targetKinds: ["group"] },
];
const chat = (
  id: string,
  kind: "direct" | "group" = "direct",
  operation: RateLimitOperation = "send",
  accountId = "bot",
): RateLimitCall => ({
  channel: "telegram",
  accountId,
  target: { kind, id },
  operation,
  route: defaultRateLimitRoute({ operation, target: { kind, id } }),
});
const route = (r: string, operation: RateLimitOperation = "send"): RateLimitCall => ({
  channel: "discord",
  accountId: "bot",
  target: { kind: "group", id: r.split("/")[2] ?? "" },
  operation,
  route: r,
});

describe("RateLimitScheduler: declared scopes", () => {
  it("returns a token a little late by default, since the platform counts on arrival", () => {
    const s = new RateLimitScheduler();
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 1_000)).toBe(11);
    expect(s.peek(telegram, chat("a"), 1_011)).toBe(0);
  });

  it("restamp moves a reserved token to when the call started: it returns an interval after that", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    s.restamp(telegram, chat("a"), 0, 40);
    expect(s.peek(telegram, chat("a"), 1_000)).toBe(40);
    expect(s.reserve(telegram, chat("a"), 1_040)).toBe(0);
  });

  it("allows one message per second per chat and tells how long to wait", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 400)).toBe(600);
    expect(s.reserve(telegram, chat("b"), 400)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 1_000)).toBe(0);
  });

  it("never lets more than `limit` calls into any sliding window", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const sent: number[] = [];
    for (let t = 0; t < 5_000; t += 7) {
      if (s.reserve(telegram, chat(`c${t % 97}`), t) === 0) sent.push(t);
    }
    for (const t of sent) {
      expect(sent.filter((u) => u >= t && u < t + 1_000).length).toBeLessThanOrEqual(30);
    }
    expect(sent.length).toBeGreaterThan(100);
  });

  it("applies the 20/min group limit to groups only", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    let t = 0;
    for (let i = 0; i < 20; i++) {
      t += 1_000;
      expect(s.reserve(telegram, chat("g", "group"), t)).toBe(0);
    }
    // Sent at 1 s … 20 s: the oldest token returns at 61 s.
    expect(s.reserve(telegram, chat("g", "group"), t + 1_000)).toBe(61_000 - 21_000);
    expect(s.reserve(telegram, chat("d"), t + 1_000)).toBe(0);
  });

  it("takes nothing when one of the buckets is empty", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(telegram, chat("a"), 0)).toBe(0);
    // chat "a" is full; the account bucket must not be charged for the refused call.
    for (let i = 0; i < 10; i++) expect(s.reserve(telegram, chat("a"), 1)).toBeGreaterThan(0);
    for (let i = 0; i < 29; i++) expect(s.reserve(telegram, chat(`x${i}`), 2)).toBe(0);
    expect(s.reserve(telegram, chat("y"), 3)).toBe(997);
  });

  it("keeps the buckets of two accounts of one channel apart", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(telegram, chat("a", "direct", "send", "bot1"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("a", "direct", "send", "bot1"), 1)).toBe(999);
    expect(s.reserve(telegram, chat("a", "direct", "send", "bot2"), 1)).toBe(0);
  });
});

describe("RateLimitScheduler: per-operation scopes", () => {
  // Slack: chat.postMessage ~1/s per channel; chat.update Tier 3 (50/min per workspace).
  const slack: RateLimitScope[] = [
    { scope: "chat", limit: 1, intervalMs: 1_000, operations: ["send"] },
    { scope: "account", limit: 50, intervalMs: 60_000, operations: ["edit"] },
  ];

  it("charges a send's bucket to sends only and an edit's to edits only", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    expect(s.reserve(slack, chat("C1"), 0)).toBe(0);
    expect(s.reserve(slack, chat("C1"), 10)).toBe(990); // the channel's send is spent
    // …but an edit in that channel goes: chat.update has its own tier.
    expect(s.reserve(slack, chat("C1", "group", "edit"), 10)).toBe(0);
    for (let i = 1; i < 50; i++)
      expect(s.reserve(slack, chat(`C${i}`, "group", "edit"), 20)).toBe(0);
    // 50 edits in the workspace this minute: the 51st waits for the first token (10 ms + 60 s).
    expect(s.reserve(slack, chat("C9", "group", "edit"), 30)).toBe(59_980);
    // Sends to other channels are not held by the edit tier.
    expect(s.reserve(slack, chat("C2"), 30)).toBe(0);
    // Deletes are covered by neither declaration.
    expect(s.reserve(slack, chat("C1", "group", "delete"), 30)).toBe(0);
  });

  it("keeps two declarations with the same fields apart by `id`, and shares one `id`", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const apart: RateLimitScope[] = [
      { scope: "chat", limit: 1, intervalMs: 1_000, id: "a" },
      { scope: "chat", limit: 1, intervalMs: 1_000, id: "b", operations: ["edit"] },
    ];
    expect(s.reserve(apart, chat("x"), 0)).toBe(0);
    expect(s.reserve(apart, chat("x", "direct", "edit"), 0)).toBe(1_000); // "a" is spent
    const shared: RateLimitScope[] = [
      { scope: "chat", limit: 1, intervalMs: 1_000, id: "s", operations: ["send"] },
      { scope: "chat", limit: 1, intervalMs: 1_000, id: "s", operations: ["edit"] },
    ];
    expect(s.reserve(shared, chat("y"), 0)).toBe(0);
    expect(s.reserve(shared, chat("y", "direct", "edit"), 0)).toBe(1_000);
  });
});

describe("RateLimitScheduler: adapter-chosen routes", () => {
  const perRoute: RateLimitScope[] = [{ scope: "route", limit: 5, intervalMs: 5_000 }];

  it("asks the adapter for the route key and falls back to the default", () => {
    const adapter = {
      rateLimitRoute: (c: { operation: string; target: { id: string } }) =>
        c.operation === "send" ? `POST /channels/${c.target.id}/messages` : undefined,
    } as unknown as ChannelMessageAdapter;
    const target = { kind: "group" as const, id: "123" };
    const account = { channel: "discord", accountId: "bot" };
    expect(rateLimitCall(adapter, account, { operation: "send", target }).route).toBe(
      "POST /channels/123/messages",
    );
    expect(rateLimitCall(adapter, account, { operation: "edit", target }).route).toBe(
      "edit:text:123",
    );
    const throwing = {
      rateLimitRoute: () => {
        throw new Error("bug");
      },
    } as unknown as ChannelMessageAdapter;
    expect(
      rateLimitCall(throwing, account, { operation: "delete", target, unitKind: "media" }).route,
    ).toBe("delete:media:123");
  });

  it("keys `route` scopes by the route, so two routes of one chat do not share", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const post = route("POST /channels/1/messages");
    const patch = route("PATCH /channels/1/messages/:id", "edit");
    for (let i = 0; i < 5; i++) expect(s.reserve(perRoute, post, i)).toBe(0);
    expect(s.reserve(perRoute, post, 10)).toBe(4_990);
    expect(s.reserve(perRoute, patch, 10)).toBe(0);
    expect(s.reserve(perRoute, route("POST /channels/2/messages"), 10)).toBe(0);
  });
});

describe("RateLimitScheduler: header feedback", () => {
  it("holds a route once the reported `remaining` is spent, until the reported reset", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const post = route("POST /channels/1/messages");
    expect(s.reserve([], post, 0)).toBe(0);
    s.observe(post, { remaining: 2, resetAfterMs: 1_000, bucket: "abc:1" }, 50);
    expect(s.reserve([], post, 60)).toBe(0);
    expect(s.reserve([], post, 70)).toBe(0);
    // Two calls let through since the report: the bucket is spent until 50 + 1000.
    expect(s.reserve([], post, 80)).toBe(970);
    expect(s.peek([], route("POST /channels/2/messages"), 80)).toBe(0); // other routes go
    expect(s.reserve([], post, 1_050)).toBe(0); // the window reset: unknown again, let go
  });

  it("adds the margin to the reported reset by default", () => {
    const s = new RateLimitScheduler();
    const post = route("POST /channels/1/messages");
    s.observe(post, { remaining: 0, resetAfterMs: 1_000 }, 0);
    expect(s.peek([], post, 0)).toBe(1_011);
  });

  it("shares one budget between routes reported in the same bucket", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const post = route("POST /channels/1/messages");
    const patch = route("PATCH /channels/1/messages/:id", "edit");
    s.observe(post, { remaining: 1, resetAfterMs: 2_000, bucket: "h:1" }, 0);
    s.observe(patch, { bucket: "h:1" }, 0); // maps the route, reports no window
    expect(s.reserve([], patch, 10)).toBe(0);
    expect(s.reserve([], post, 20)).toBe(1_980);
  });

  it("keeps the lower `remaining` of one window (calls in flight) and resets on a new one", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const post = route("POST /channels/1/messages");
    s.observe(post, { remaining: 1, resetAfterMs: 1_000 }, 0);
    // A response that left before ours reports more left in the same window: ignored.
    s.observe(post, { remaining: 4, resetAfterMs: 990 }, 10);
    expect(s.reserve([], post, 20)).toBe(0);
    expect(s.reserve([], post, 30)).toBe(970);
    // A later window (reset well after the known one) replaces the state.
    s.observe(post, { remaining: 3, resetAfterMs: 1_000 }, 1_000);
    for (let i = 0; i < 3; i++) expect(s.reserve([], post, 1_010)).toBe(0);
    expect(s.reserve([], post, 1_010)).toBe(990);
  });

  it("ignores a report without a usable window, and an unparseable one", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const post = route("POST /channels/1/messages");
    s.observe(post, { remaining: 0 }, 0);
    s.observe(post, { remaining: Number.NaN, resetAfterMs: 1_000 }, 0);
    s.observe(post, { remaining: 0, resetAfterMs: -5 }, 0);
    expect(s.peek([], post, 0)).toBe(0);
  });
});

describe("RateLimitScheduler: pauses after a 429", () => {
  it("pauses only the route that was hit by default kind `route`", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const send = chat("a");
    s.pause("route", send, 2_000);
    expect(s.reserve(telegram, send, 0)).toBe(2_000);
    // The same chat's edits are another route; other chats go as well.
    expect(s.reserve(telegram, chat("a", "direct", "edit"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("b"), 0)).toBe(0);
    expect(s.reserve(telegram, send, 2_000)).toBe(0);
  });

  it("pauses every route sharing the reported bucket", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    const post = route("POST /channels/1/messages");
    const patch = route("PATCH /channels/1/messages/:id", "edit");
    s.observe(post, { bucket: "h:1" }, 0);
    s.observe(patch, { bucket: "h:1" }, 0);
    s.pause("route", patch, 300);
    expect(s.peek([], post, 0)).toBe(300);
    expect(s.peek([], route("POST /channels/2/messages"), 0)).toBe(0);
  });

  it("pauses only the throttled chat after a chat-wide retry-after", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    s.pause("chat", chat("a"), 17_000);
    expect(s.reserve(telegram, chat("a"), 0)).toBe(17_000);
    expect(s.reserve(telegram, chat("a", "direct", "edit"), 0)).toBe(17_000);
    expect(s.reserve(telegram, chat("b"), 0)).toBe(0);
    expect(s.reserve(telegram, chat("a"), 17_000)).toBe(0);
  });

  it("pauses every chat of the bot for an account-wide retry-after, declared or not", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    s.pause("account", chat("a"), 500);
    expect(s.reserve([], chat("z"), 0)).toBe(500);
    expect(s.reserve([], chat("z", "direct", "send", "other-bot"), 0)).toBe(0);
  });

  it("forgets past state without losing live state (sweeps every 512 operations)", () => {
    const s = new RateLimitScheduler({ marginMs: () => 0 });
    s.pause("chat", chat("held"), 1_000_000);
    s.observe(route("POST /channels/9/messages"), { remaining: 0, resetAfterMs: 1_000_000 }, 0);
    for (let i = 0; i < 2_000; i++) expect(s.reserve(telegram, chat(`c${i}`), i * 400)).toBe(0);
    expect(s.peek(telegram, chat("held"), 999_999)).toBe(1);
    expect(s.peek([], route("POST /channels/9/messages"), 999_000)).toBe(1_000);
  });
});

/**
 * `pollingReceiver` inside a real herald runtime (store, dedupe, the default ack policy
 * `after-durable-send`): an update whose handler is still running is answered again by the
 * platform on every poll, and must still reach herald once — the documented recipe it replaces
 * (`resumeAfter() + 1` in a plain loop) handed it over on every poll.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../testing/eventually.ts";
import { openTestRun } from "../../testing/testRun.ts";
import { defineChannelMessageAdapter } from "../plugin.ts";
import { createHttpClient } from "./http-client.ts";
import { platformErrors } from "./platform-errors.ts";
import { pollingReceiver } from "./polling-receiver.ts";

type Update = { id: number; text: string };
const teardown: Array<() => unknown> = [];
afterEach(async () => {
  for (const t of teardown.splice(0).reverse()) await t();
});

/** Telegram's getUpdates semantics (see polling-receiver.test.ts), on 127.0.0.1. */
async function platform() {
  let queue: Update[] = [];
  const polls: Array<string | null> = [];
  const server = createServer((req, res) => {
    const after = new URL(req.url ?? "/", "http://x").searchParams.get("after");
    polls.push(after);
    if (after !== null) queue = queue.filter((u) => u.id > Number(after));
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ updates: queue }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  teardown.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, polls, post: (u: Update) => queue.push(u), queued: () => queue.length };
}

const adapter = defineChannelMessageAdapter({
  id: "acme",
  capabilities: { text: { maxLength: 100 } },
  render: {
    render: (m, ctx) => ({
      units: [{ index: 0, kind: "text", payload: m.body?.markdown ?? "", required: true }],
      atomicity: "all_or_retry_remaining",
      idempotencyKey: ctx.idempotencyKey,
    }),
  },
  send: {
    send: async (_ctx, unit) => ({ platformMessageId: "x", kind: unit.kind, index: unit.index }),
    classifyError: () => ({ kind: "unknown", evidence: "maybe_sent", message: "unknown" }),
  },
  receive: {
    normalize: (raw) => {
      const u = raw as Update;
      return {
        id: `acme:${u.id}`,
        channel: "acme",
        direction: "inbound",
        target: { kind: "direct", id: "alice" },
        sender: { id: "alice" },
        body: { markdown: u.text },
        platformMessageId: String(u.id),
        timestamp: 0,
      };
    },
  },
});

describe("pollingReceiver in a herald runtime", () => {
  it("delivers an update once while its handler runs, however often the platform answers it", async () => {
    const p = await platform();
    let release: () => void = () => {};
    const handlerDone = new Promise<void>((resolve) => {
      release = resolve;
    });
    const run = await openTestRun({ adapters: [adapter], handler: () => handlerDone });
    teardown.push(() => run.close());
    const { ApiError, NetworkError } = platformErrors("Acme", {
      code: "HERALD_ACME",
      platform: "the Acme API",
    });
    const call = createHttpClient({ baseUrl: p.url, errors: { ApiError, NetworkError } });
    const receiver = pollingReceiver<Update>({
      sink: run.sink("acme"),
      poll: ({ after, signal }) =>
        call<{ updates: Update[] }>("GET /v1/updates", {
          query: { after: after?.toString() },
          signal,
        }).then((a) => a.updates),
      idOf: (u) => u.id,
      pinnedPollIntervalMs: 5,
      emptyPollGapMs: 5,
    });
    teardown.push(() => receiver.stop?.());
    p.post({ id: 1, text: "hello" });
    await receiver.start?.();
    await eventually(
      () => run.handled.length,
      (n) => n === 1,
    );
    const pollsBefore = p.polls.length;
    await eventually(
      () => p.polls.length,
      (n) => n >= pollsBefore + 10,
    );
    // The platform answered update 1 on each of those polls; herald got it once.
    expect(run.deliveries).toBe(1);
    expect(p.queued()).toBe(1);
    release();
    await eventually(
      () => p.queued(),
      (n) => n === 0,
    );
    expect(run.deliveries).toBe(1);
    expect(run.handled).toHaveLength(1);
  });
});

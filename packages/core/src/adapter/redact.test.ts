/**
 * DESIGN §11 / [H20] 7: with `redact`, no stored failure reason holds a secret, whatever the
 * adapter's own classifyError let through (a proxy echoing the token in its error page).
 */
import { describe, expect, it } from "vitest";
import type { ChannelMessage } from "../message/message.ts";
import { SecretRedactor } from "../redact.ts";
import { createMessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import type { ChannelMessageAdapter } from "./types.ts";

const TOKEN = "123456:ABC-leaky_token";

/** An adapter whose platform answers 400 with the token in the text, and which forgets to redact. */
const leaky: ChannelMessageAdapter = {
  id: "leaky",
  capabilities: { text: { maxLength: 100 } },
  render: {
    render: (message, ctx) => ({
      idempotencyKey: ctx.idempotencyKey,
      atomicity: "all_or_retry_remaining",
      units: [{ index: 0, kind: "text", payload: message.body?.markdown ?? "", required: true }],
    }),
  },
  send: {
    send: async () => {
      throw new Error(`proxy: bad request to https://api.example/bot${TOKEN}/send`);
    },
    classifyError: (error) => ({
      kind: "invalid_payload",
      evidence: "not_dispatched",
      message: (error as Error).message,
    }),
  },
};

const message: ChannelMessage = {
  id: "m1",
  channel: "leaky",
  direction: "outbound",
  target: { kind: "direct", id: "c1" },
  body: { markdown: "hi" },
};

async function storedFailure(redact?: (text: string) => string): Promise<string> {
  const store = new SqliteStateStore({ path: ":memory:" });
  const runtime = createMessageRuntime({
    store,
    adapters: [leaky],
    delivery: { pollIntervalMs: 5 },
    ...(redact ? { redact } : {}),
  });
  await runtime.start();
  try {
    await runtime.send(message, { idempotencyKey: "k" }).catch(() => undefined);
    const intent = await store.getIntentByIdempotencyKey("k");
    expect(intent?.status).toBe("failed");
    return JSON.stringify(intent);
  } finally {
    await runtime.stop(1_000);
    await store.close();
  }
}

describe("runtime redact", () => {
  it("redacts every classified failure before it is stored (the token configured with a newline)", async () => {
    const secrets = new SecretRedactor().add(`${TOKEN}\n`);
    const stored = await storedFailure((text) => secrets.redact(text));
    expect(stored).toContain("bad request to https://api.example/bot[redacted]/send");
    expect(stored).not.toContain(TOKEN);
  });

  it("leaves failures as the adapter classified them without it", async () => {
    expect(await storedFailure()).toContain(TOKEN);
  });
});

/**
 * [H23] `defineChannelMessageAdapter` and the features beyond text: a declared feature without
 * its method is refused at definition time; a channel without buttons renders their text
 * fallback, one with them gets the actions untouched.
 */
import type { ChannelMessage, ChannelMessageAdapter } from "@herald/core";
import { describe, expect, it } from "vitest";
import { defineChannelMessageAdapter } from "./plugin.ts";

function adapter(extra: Partial<ChannelMessageAdapter["capabilities"]> = {}) {
  const seen: ChannelMessage[] = [];
  const a: ChannelMessageAdapter = {
    id: "x",
    capabilities: { text: {}, ...extra },
    render: {
      render(message, ctx) {
        seen.push(message);
        return {
          units: [],
          atomicity: "all_or_retry_remaining",
          idempotencyKey: ctx.idempotencyKey,
        };
      },
    },
    send: {
      send: async () => ({ platformMessageId: "1", kind: "text", index: 0 }),
      classifyError: () => ({ kind: "unknown", evidence: "maybe_sent", message: "" }),
    },
  };
  return { a, seen };
}

const message: ChannelMessage = {
  id: "m",
  channel: "x",
  direction: "outbound",
  target: { kind: "group", id: "g" },
  body: { markdown: "Deploy?" },
  actions: [{ kind: "button", id: "ok", label: "OK" }],
};

describe("[H23] defineChannelMessageAdapter and features", () => {
  it("refuses a declared feature without its method, naming both", () => {
    expect(() =>
      defineChannelMessageAdapter(
        adapter({ reactions: { add: true, remove: true, receive: false, repeat: "idempotent" } }).a,
      ),
    ).toThrow("x: capabilities.reactions needs send.react");
    expect(() => defineChannelMessageAdapter(adapter({ ephemeral: true }).a)).toThrow(
      "capabilities.ephemeral needs send.sendEphemeral",
    );
    expect(() =>
      defineChannelMessageAdapter(adapter({ directMessages: { open: true } }).a),
    ).toThrow("capabilities.directMessages.open needs directMessages");
    expect(() =>
      defineChannelMessageAdapter(
        adapter({ history: { conversation: true, thread: false, maxLimit: 10 } }).a,
      ),
    ).toThrow("capabilities.history needs history");
  });

  it("renders buttons as text where the channel has none, natively where it has them", async () => {
    const without = adapter();
    await defineChannelMessageAdapter(without.a).render.render(message, {
      idempotencyKey: "k",
      capabilities: without.a.capabilities,
    });
    expect(without.seen[0]).toMatchObject({ body: { markdown: "Deploy?\n\nReply with: OK" } });
    expect(without.seen[0]?.actions).toBeUndefined();
    const withButtons = adapter({ actions: { buttons: true, receive: true }, cards: true });
    await defineChannelMessageAdapter(withButtons.a).render.render(message, {
      idempotencyKey: "k",
      capabilities: withButtons.a.capabilities,
    });
    expect(withButtons.seen[0]).toEqual(message);
  });
});

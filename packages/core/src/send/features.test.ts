/**
 * [H23] The runtime's feature calls on a channel that declares none of them: each throws a
 * typed `NotSupportedError` (code `HERALD_NOT_SUPPORTED`, feature, channel) and nothing is
 * stored or sent; an inbound reaction or click that fails validation is dead-lettered naming
 * the field.
 */
import { describe, expect, it } from "vitest";
import { createMessageRuntime } from "../runtime.ts";
import { SqliteStateStore } from "../state/sqlite/SqliteStateStore.ts";
import { createFakeAdapter } from "../testing/fakeAdapter.ts";
import { FakePlatform, inProcessTransport } from "../testing/index.ts";

describe("[H23] feature calls without the capability", () => {
  it("throws NotSupportedError for reactions, DMs, ephemeral, history and file fetches; stores nothing", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const runtime = createMessageRuntime({
      store,
      adapters: [createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) })],
    });
    await runtime.start();
    const target = { kind: "group" as const, id: "g" };
    const calls: Array<[string, () => Promise<unknown>]> = [
      [
        "reactions",
        () =>
          runtime.react({
            channel: "qa",
            target,
            messageId: "1",
            emoji: "👀",
            idempotencyKey: "k",
          }),
      ],
      [
        "reactions.remove",
        () =>
          runtime.react({
            channel: "qa",
            target,
            messageId: "1",
            emoji: "👀",
            remove: true,
            idempotencyKey: "k2",
          }),
      ],
      ["direct_messages", () => runtime.openDirect({ channel: "qa", userId: "u" })],
      [
        "ephemeral",
        () =>
          runtime.sendEphemeral({
            channel: "qa",
            target,
            userId: "u",
            message: { id: "e", body: { markdown: "x" } },
          }),
      ],
      ["history", () => runtime.history({ channel: "qa", target, limit: 5 })],
      [
        "attachments.receive",
        () =>
          runtime.fetchAttachment({
            channel: "qa",
            attachment: { kind: "file", platformFileId: "F1" },
            maxBytes: 10,
          }),
      ],
    ];
    for (const [feature, call] of calls) {
      await expect(call(), feature).rejects.toMatchObject({
        name: "NotSupportedError",
        code: "HERALD_NOT_SUPPORTED",
        feature,
        channel: "qa",
      });
    }
    expect(await store.listIntents()).toEqual([]);
    await runtime.stop();
    await store.close();
  });

  it("dead-letters a reaction event missing its emoji, naming the field", async () => {
    const store = new SqliteStateStore({ path: ":memory:" });
    const adapter = createFakeAdapter({ transport: inProcessTransport(new FakePlatform()) });
    const runtime = createMessageRuntime({
      store,
      adapters: [
        {
          ...adapter,
          receive: {
            normalize: (raw) => raw as never,
          },
        },
      ],
    });
    await runtime.start();
    const outcome = await runtime.receive(
      {
        kind: "reaction",
        id: "r1",
        channel: "qa",
        target: { kind: "group", id: "g" },
        sender: { id: "u" },
        messageId: "7",
        removed: false,
        timestamp: 1,
      },
      { channel: "qa" },
    ).done;
    expect(outcome.status).toBe("dead_lettered");
    const [letter] = await store.listDeadLetters();
    expect(JSON.stringify(letter?.error)).toContain("normalized.emoji");
    await runtime.stop();
    await store.close();
  });
});

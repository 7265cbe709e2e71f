/**
 * Buttons on Discord ([H23]): `actions` as message components on the created message (custom_id
 * = id), a click on the signed interactions endpoint answered type 6 and handed once to the
 * action handler; Discord's limits checked before any call.
 */
import { generateKeyPairSync, sign } from "node:crypto";
import type { InboundAction } from "@herald/plugin-sdk/channel-message";
import { eventually, openTestRun } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { componentRows } from "./actions.ts";
import { discordConfigSchema } from "./config.ts";
import { DiscordRenderError } from "./errors.ts";
import { createDiscordAdapter, createDiscordReceiver } from "./index.ts";
import { SIGNATURE_HEADER, TIMESTAMP_HEADER } from "./interactions.ts";
import { ALICE, FAKE_BOT, FakeDiscord } from "./testing/FakeDiscord.ts";
import { componentInteraction } from "./testing/fakeActions.ts";

const { publicKey, privateKey } = generateKeyPairSync("ed25519");
const PUBLIC_KEY = Buffer.from(
  (publicKey.export({ format: "jwk" }) as { x: string }).x,
  "base64url",
).toString("hex");

describe("buttons (H23)", () => {
  it("H23 actions: buttons are components (custom_id = id); a click is answered type 6 and reaches the action handler once", async () => {
    const fake = await FakeDiscord.start();
    const config = discordConfigSchema.parse({
      apiBase: fake.apiBase,
      interactions: { publicKey: PUBLIC_KEY },
      unknownSendPolicy: "hold",
    });
    const adapter = createDiscordAdapter(config, FAKE_BOT.token);
    const run = await openTestRun({ adapters: [adapter], accountId: "main" });
    onTestFinished(async () => {
      await run.close();
      await fake.close();
    });
    const clicks: InboundAction[] = [];
    run.runtime.onAction((a) => {
      clicks.push(a);
    });
    const receiver = createDiscordReceiver(config, FAKE_BOT.token, run.sink("discord", "main"));
    const channel = fake.createChannel({ type: "text" });
    const target = { kind: "group" as const, id: channel.id, spaceId: fake.guildId };
    await run.runtime.enqueue(
      run.message("discord", target, "Deploy to prod?", {
        actions: [
          { kind: "button", id: "approve", label: "Approve", style: "primary" },
          { kind: "button", id: "reject", label: "Reject", style: "danger" },
          { kind: "link", label: "Runbook", url: "https://example.com/runbook" },
        ],
      }),
      { idempotencyKey: "h23-discord-buttons" },
    );
    const intent = await run.settled("h23-discord-buttons");
    expect(intent.status).toBe("sent");
    const id = fake.messages(channel.id)[0]?.id as string;
    expect(fake.stored.get(id)?.json.components).toMatchObject([
      {
        type: 1,
        components: [
          { type: 2, style: 1, label: "Approve", custom_id: "approve" },
          { type: 2, style: 4, label: "Reject", custom_id: "reject" },
          { type: 2, style: 5, label: "Runbook", url: "https://example.com/runbook" },
        ],
      },
    ]);
    const body = JSON.stringify(
      componentInteraction(fake, {
        messageId: id,
        customId: "approve",
        user: ALICE,
        id: "900000000000000001",
        applicationId: FAKE_BOT.applicationId,
      }),
    );
    const click = async () => {
      const ts = String(Math.floor(Date.now() / 1_000));
      const signature = sign(null, Buffer.from(ts + body), privateKey).toString("hex");
      return (await receiver.webhook?.(
        new Request("http://127.0.0.1/webhooks/discord/main", {
          method: "POST",
          headers: {
            "content-type": "application/json",
            [SIGNATURE_HEADER]: signature,
            [TIMESTAMP_HEADER]: ts,
          },
          body,
        }),
      )) as Response;
    };
    const answer = await click();
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ type: 6 });
    // Discord sends the same interaction again (our answer was lost): one click.
    await click();
    await eventually(
      () => clicks.length,
      (n) => n >= 1,
    );
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({
      kind: "action",
      channel: "discord",
      accountId: "main",
      target: { kind: "group", id: channel.id },
      sender: { id: ALICE.id },
      actionId: "approve",
      messageId: `${channel.id}:${id}`,
    });
  });

  it("H23 actions: a custom_id over 100 characters is a render error naming the field", () => {
    const tooLong = [{ kind: "button" as const, id: "x".repeat(101), label: "Go" }];
    expect(() => componentRows(tooLong)).toThrow(DiscordRenderError);
    expect(() => componentRows(tooLong)).toThrow(/actions\[0\]\.id/);
  });

  it("H23 actions: six buttons become two action rows (Discord: five per row)", () => {
    const six = Array.from({ length: 6 }, (_, i) => ({
      kind: "button" as const,
      id: `b${i}`,
      label: `B${i}`,
    }));
    expect(componentRows(six).map((r) => r.components.length)).toEqual([5, 1]);
  });
});

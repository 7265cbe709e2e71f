/**
 * Contract tests of the features beyond text ([H23]; docs/concepts/features.md), area
 * `features`: each test is gated by the adapter's capabilities (a channel that declares a
 * feature must pass it) and by the fake platform's `features` hooks (what it can show).
 *
 * @module
 */
import type { InboundAction } from "@herald/plugin-sdk/channel-message";
import { expect } from "vitest";
import type { ContractSuite } from "./registry.ts";
import { openRun } from "./setup.ts";

/** Registers the `features` area. */
export function featureTests(suite: ContractSuite): void {
  const { harness: h, test, describe } = suite;
  if (!suite.has("features")) return;
  describe("features beyond text [H23]", () => {
    test(
      "features.reaction-add-remove",
      "a reaction is added, a repeated key adds nothing, another key removes it",
      async (ctx) => {
        const run = await openRun(h);
        const caps = run.adapter.capabilities.reactions;
        ctx.skip(!caps?.add || !caps.remove, "the adapter declares no reactions add + remove");
        const f = run.platform.features;
        ctx.skip(!f?.botReactions, "the fake cannot show reactions (features.botReactions)");
        const target = await run.platform.createTarget("group");
        const sent = await run.runtime.send(run.message(target, "react to me"));
        const id = sent.primaryPlatformMessageId ?? "";
        const react = (key: string, remove = false) =>
          run.runtime.react({
            channel: run.adapter.id,
            accountId: h.accountId ?? "contract",
            target,
            messageId: id,
            emoji: "👀",
            ...(remove ? { remove: true } : {}),
            idempotencyKey: key,
          });
        await react("add-1");
        await react("add-1");
        expect(await f?.botReactions?.(target, id)).toEqual(["👀"]);
        await react("remove-1", true);
        expect(await f?.botReactions?.(target, id)).toEqual([]);
      },
    );

    test(
      "features.reaction-replay-not-toggled",
      "a reaction whose answer was lost (maybe sent) is replayed and is still on, never toggled off",
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(!run.adapter.capabilities.reactions?.add, "the adapter declares no reactions");
        const f = run.platform.features;
        ctx.skip(!f?.botReactions, "the fake cannot show reactions (features.botReactions)");
        const target = await run.platform.createTarget("group");
        const sent = await run.runtime.send(run.message(target, "react once"));
        const id = sent.primaryPlatformMessageId ?? "";
        run.platform.faults.failNext({ kind: "reset_after_accept" }, { op: "react" });
        const receipt = await run.runtime.react({
          channel: run.adapter.id,
          accountId: h.accountId ?? "contract",
          target,
          messageId: id,
          emoji: "👍",
          idempotencyKey: "replayed",
        });
        expect(receipt.parts[0]).toMatchObject({ kind: "reaction", replyToId: id });
        expect(await f?.botReactions?.(target, id)).toEqual(["👍"]);
      },
    );

    test(
      "features.dm-open-idempotent",
      "opening the DM with a user twice gives one conversation, and a message lands in it",
      async (ctx) => {
        const run = await openRun(h);
        ctx.skip(!run.adapter.capabilities.directMessages?.open, "the adapter declares no DMs");
        const user = run.platform.features?.dmUserId;
        ctx.skip(user === undefined, "the fake names no DM user (features.dmUserId)");
        const address = { channel: run.adapter.id, accountId: h.accountId ?? "contract" };
        const a = await run.runtime.openDirect({ ...address, userId: user as string });
        const b = await run.runtime.openDirect({ ...address, userId: user as string });
        expect(a.kind).toBe("direct");
        expect(b).toEqual(a);
        await run.runtime.send(run.message(a, "hello in private"));
        expect((await run.visible(a)).map((m) => m.text)).toEqual(["hello in private"]);
      },
    );

    test(
      "features.action-round-trip",
      "buttons are drawn; a click (redelivered) reaches the action handler once",
      async (ctx) => {
        const run = await openRun(h);
        const caps = run.adapter.capabilities.actions;
        ctx.skip(!caps?.buttons || !caps.receive, "the adapter declares no buttons + clicks");
        const f = run.platform.features;
        ctx.skip(!f?.click, "the fake cannot click (features.click)");
        const clicks: InboundAction[] = [];
        run.runtime.onAction((a) => {
          clicks.push(a);
        });
        const target = await run.platform.createTarget("group");
        const sent = await run.runtime.send(
          run.message(target, "Approve?", {
            actions: [
              { kind: "button", id: "approve", label: "Approve", value: "yes" },
              { kind: "button", id: "reject", label: "Reject" },
            ],
          }),
        );
        const raw = await f?.click?.(target, sent.primaryPlatformMessageId ?? "", "approve");
        const first = await run.runtime.receive(raw, { channel: run.adapter.id }).done;
        const again = await run.runtime.receive(raw, { channel: run.adapter.id }).done;
        expect([first.status, again.status]).toEqual(["interaction", "duplicate"]);
        expect(clicks.map((c) => [c.actionId, c.value])).toEqual([["approve", "yes"]]);
      },
    );

    test(
      "features.ephemeral",
      "an ephemeral reply is shown to its user only; a channel without them throws NotSupportedError",
      async (ctx) => {
        const run = await openRun(h);
        const target = await run.platform.createTarget("group");
        const send = () =>
          run.runtime.sendEphemeral({
            channel: run.adapter.id,
            accountId: h.accountId ?? "contract",
            target,
            userId: "alice",
            message: { id: "eph-1", body: { markdown: "only you" } },
          });
        if (run.adapter.capabilities.ephemeral !== true) {
          await expect(send()).rejects.toMatchObject({ code: "HERALD_NOT_SUPPORTED" });
          return;
        }
        const f = run.platform.features;
        ctx.skip(!f?.ephemeralFor, "the fake cannot show ephemeral messages");
        await send();
        expect(await f?.ephemeralFor?.(target, "alice")).toEqual(["only you"]);
        expect(await f?.ephemeralFor?.(target, "bob")).toEqual([]);
        expect((await run.visible(target)).map((m) => m.text)).not.toContain("only you");
      },
    );

    test(
      "features.history",
      "history returns the newest messages oldest first; a channel without it throws NotSupportedError",
      async (ctx) => {
        const run = await openRun(h);
        const target = await run.platform.createTarget("group");
        const read = (limit: number) =>
          run.runtime.history({
            channel: run.adapter.id,
            accountId: h.accountId ?? "contract",
            target,
            limit,
          });
        if (!run.adapter.capabilities.history?.conversation) {
          await expect(read(2)).rejects.toMatchObject({ code: "HERALD_NOT_SUPPORTED" });
          return;
        }
        const f = run.platform.features;
        ctx.skip(!f?.post, "the fake cannot post as a person (features.post)");
        for (const text of ["one", "two", "three"]) await f?.post?.(target, text);
        const texts = (await read(2)).map((m) => m.body?.markdown);
        expect(texts).toEqual(["two", "three"]);
      },
    );
  });
}

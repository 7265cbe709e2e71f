/**
 * [H23] buttons on Google Chat: a message's `actions` go out as a cardsV2 `buttonList`
 * (`onClick.action.function` = the action id, parameter `value`), and a click comes back as a
 * `CARD_CLICKED` event → one `InboundAction` (answered `{}` synchronously, a redelivery is a
 * duplicate). The real `@googleapis/chat` client against the fake; the webhook end to end.
 */
import { eventually } from "@herald/plugin-sdk/testing";
import { afterEach, describe, expect, it } from "vitest";
import { ALICE, FAKE_APP } from "./testing/FakeGoogleChat.ts";
import { type GoogleChatRun, openGoogleChatRun } from "./testing/fixture.ts";

let open: GoogleChatRun | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

describe("H23 · Google Chat buttons", () => {
  it("H23 buttons: actions become a cardsV2 buttonList after the text; a click (CARD_CLICKED) is one InboundAction, answered {} and deduped on redelivery", async () => {
    open = await openGoogleChatRun({ receiver: true });
    const t = open;
    const space = t.fake.createSpace().name;
    const receipt = await t.run.runtime.send(
      t.run.message(t.adapter.id, { kind: "group", id: space }, "Deploy to prod?", {
        actions: [
          {
            kind: "button",
            id: "deploy.approve",
            label: "Approve",
            value: "v42",
            style: "primary",
          },
          { kind: "button", id: "deploy.reject", label: "Reject" },
          { kind: "link", label: "Runbook", url: "https://example.org/runbook" },
        ],
      }),
    );
    expect(receipt.parts.map((p) => p.kind)).toEqual(["text", "card"]);
    const cardMessage = t.fake.store.find(receipt.parts[1]?.platformMessageId as string);
    const card = cardMessage?.cardsV2?.[0] as {
      card: { sections: Array<{ widgets: Array<{ buttonList?: { buttons: unknown[] } }> }> };
    };
    const buttons = card.card.sections[0]?.widgets.find((w) => w.buttonList)?.buttonList?.buttons;
    expect(buttons).toEqual([
      {
        text: "Approve",
        onClick: {
          action: { function: "deploy.approve", parameters: [{ key: "value", value: "v42" }] },
        },
      },
      { text: "Reject", onClick: { action: { function: "deploy.reject" } } },
      { text: "Runbook", onClick: { openLink: { url: "https://example.org/runbook" } } },
    ]);
    expect(cardMessage?.fallbackText).toContain("Approve");

    const click = {
      type: "CARD_CLICKED",
      eventTime: "2026-12-08T00:30:00.000Z",
      space: { name: space, spaceType: "SPACE" },
      message: { ...t.fake.store.toJson(cardMessage as never), sender: FAKE_APP },
      user: ALICE,
      action: { actionMethodName: "deploy.approve", parameters: [{ key: "value", value: "v42" }] },
      common: { invokedFunction: "deploy.approve", parameters: { value: "v42" } },
    };
    const answer = await t.fake.post(click);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({});
    await t.fake.post(click); // Chat delivers the same click again
    await eventually(
      () => t.run.outcomes,
      (o) => o.length === 2,
    );
    expect(t.run.outcomes.map((o) => o.status)).toEqual(["interaction", "duplicate"]);
    const first = t.run.outcomes[0] as { interaction?: Record<string, unknown> };
    expect(first.interaction).toMatchObject({
      kind: "action",
      actionId: "deploy.approve",
      value: "v42",
      messageId: cardMessage?.name,
      sender: { id: ALICE.name },
      target: { kind: "group", id: space },
    });
    expect(t.run.handled).toEqual([]);
  });

  it("H23 buttons: with cards off, the buttons are a text fallback (Reply with: …), no card", async () => {
    open = await openGoogleChatRun({ config: { cards: false } });
    const t = open;
    const space = t.fake.createSpace().name;
    const receipt = await t.run.runtime.send(
      t.run.message(t.adapter.id, { kind: "group", id: space }, "Deploy?", {
        actions: [
          { kind: "button", id: "a", label: "Approve" },
          { kind: "button", id: "r", label: "Reject" },
        ],
      }),
    );
    expect(receipt.parts.map((p) => p.kind)).toEqual(["text"]);
    const m = t.fake.store.find(receipt.parts[0]?.platformMessageId as string);
    expect(m?.cardsV2).toBeUndefined();
    expect(t.fake.store.toJson(m as never).text).toContain("Reply with: Approve / Reject");
  });
});

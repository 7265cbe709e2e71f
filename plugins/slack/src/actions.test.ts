import type { InboundAction } from "@herald/plugin-sdk/channel-message";
import { describe, expect, it, onTestFinished } from "vitest";
import { actionBlocks } from "./actions.ts";
import { SlackRenderError } from "./errors.ts";
import { ALICE, FAKE_BOT } from "./testing/index.ts";
import { openSlackRun } from "./testkit.ts";

describe("buttons (H23)", () => {
  it("H23 actions: buttons are a Block Kit actions block (action_id = id); a click reaches the action handler once, Slack answered 200", async () => {
    const run = await openSlackRun(onTestFinished);
    const clicks: InboundAction[] = [];
    run.runtime.onAction((a) => {
      clicks.push(a);
    });
    const channel = run.fake.createChannel().id;
    const target = { kind: "group" as const, id: channel };
    await run.runtime.enqueue(
      run.message("slack", target, "Deploy to prod?", {
        actions: [
          { kind: "button", id: "approve", label: "Approve", value: "v42", style: "primary" },
          { kind: "button", id: "reject", label: "Reject", style: "danger" },
          { kind: "link", label: "Runbook", url: "https://example.com/runbook" },
        ],
      }),
      { idempotencyKey: "h23-buttons" },
    );
    const intent = await run.settled("h23-buttons");
    expect(intent.status).toBe("sent");
    const posted = [...run.fake.messagesByRef.values()].find((m) => m.channel === channel);
    expect(posted?.blocks).toEqual([
      { type: "section", text: { type: "mrkdwn", text: "Deploy to prod?" } },
      {
        type: "actions",
        elements: [
          {
            type: "button",
            action_id: "approve",
            text: { type: "plain_text", text: "Approve", emoji: true },
            value: "v42",
            style: "primary",
          },
          {
            type: "button",
            action_id: "reject",
            text: { type: "plain_text", text: "Reject", emoji: true },
            style: "danger",
          },
          {
            type: "button",
            action_id: "link-2",
            text: { type: "plain_text", text: "Runbook", emoji: true },
            url: "https://example.com/runbook",
          },
        ],
      },
    ]);
    const ts = posted?.ts as string;
    const { response, payload } = await run.fake.userClick({ channel, ts, actionId: "approve" });
    expect(response?.status).toBe(200);
    // The same payload again (a proxy retry): one click.
    const body = new URLSearchParams({ payload: JSON.stringify(payload) }).toString();
    await run.fake.events.post(FAKE_BOT, body, {
      contentType: "application/x-www-form-urlencoded",
    });
    await expect.poll(() => clicks.length).toBe(1);
    await expect.poll(() => run.outcomes.filter((o) => o.status === "duplicate").length).toBe(1);
    expect(clicks[0]).toMatchObject({
      kind: "action",
      channel: "slack",
      accountId: "main",
      target,
      sender: { id: ALICE.id },
      actionId: "approve",
      value: "v42",
      messageId: `${channel}:${ts}`,
    });
  });

  it("H23 actions: an action_id over Slack's 255 characters is a render error naming the field, nothing posted", () => {
    expect(() => actionBlocks("x", [{ kind: "button", id: "a".repeat(256), label: "Go" }])).toThrow(
      SlackRenderError,
    );
    expect(() => actionBlocks("x", [{ kind: "button", id: "a".repeat(256), label: "Go" }])).toThrow(
      /actions\[0\]\.id/,
    );
  });
});

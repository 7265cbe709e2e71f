import type { ChannelMessage } from "@herald/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { ChannelOptionsError, channelOptionsOf, withChannelOptions } from "./channel-options.ts";

const message: ChannelMessage = {
  id: "m1",
  channel: "telegram",
  direction: "outbound",
  target: { kind: "direct", id: "1" },
  body: { markdown: "hi" },
};
const schema = z.object({
  inlineKeyboard: z.array(z.array(z.object({ text: z.string().min(1) }))),
});

describe("channel options", () => {
  it("keeps each channel's options under its own key, and reads them back validated", () => {
    const withSlack = withChannelOptions(message, "slack", { unfurlLinks: false });
    const both = withChannelOptions(withSlack, "telegram", { inlineKeyboard: [[{ text: "Yes" }]] });
    expect(both.channelOptions).toEqual({
      slack: { unfurlLinks: false },
      telegram: { inlineKeyboard: [[{ text: "Yes" }]] },
    });
    expect(both.raw).toBeUndefined();
    expect(channelOptionsOf(both, "telegram", schema)).toEqual({
      inlineKeyboard: [[{ text: "Yes" }]],
    });
    expect(channelOptionsOf(message, "telegram", schema)).toBeUndefined();
  });

  it("names the field path of bad options", () => {
    const bad = withChannelOptions(message, "telegram", { inlineKeyboard: [[{ text: "" }]] });
    const error = (() => {
      try {
        channelOptionsOf(bad, "telegram", schema);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(ChannelOptionsError);
    expect((error as ChannelOptionsError).path).toBe(
      "channelOptions.telegram.inlineKeyboard.0.0.text",
    );
  });
});

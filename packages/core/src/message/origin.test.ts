import { describe, expect, it } from "vitest";
import { gatewayFailureOrigin, type MessageOrigin, shouldDropHeraldEcho } from "./origin.ts";

describe("gateway failure origin", () => {
  it("tags the output with the drop-bot-room-echo policy", () => {
    expect(gatewayFailureOrigin("agent_failed_before_reply")).toEqual({
      source: "herald",
      schemaVersion: 1,
      kind: "gateway_failure",
      code: "agent_failed_before_reply",
      echoPolicy: "drop_bot_room_echo",
    });
  });
});

describe("shouldDropHeraldEcho", () => {
  const tagged = gatewayFailureOrigin("missing_api_key");
  const cases: Array<[string, MessageOrigin | undefined, boolean, boolean, boolean]> = [
    ["tagged bot echo in a room", tagged, true, true, true],
    ["tagged bot echo in a DM", tagged, true, false, false],
    ["tagged, human author", tagged, false, true, false],
    ["untagged bot message with the same text", undefined, true, true, false],
    ["external bot origin", { source: "external_bot" }, true, true, false],
    ["user origin", { source: "user" }, true, true, false],
  ];
  it.each(cases)("%s", (_name, origin, isBotAuthor, isRoomish, expected) => {
    expect(shouldDropHeraldEcho({ origin, isBotAuthor, isRoomish })).toBe(expected);
  });
});

/**
 * The shared contract suite's inbound areas once more, with the receiver in the other
 * authentication-audience mode (project number: Chat's self-signed JWT) — the full suite runs
 * on the endpoint-URL mode through qa-channel's workspace discovery (CASES C34 a/b/c through
 * the real receiver, forged / missing / stale tokens included).
 */
import { describeChannelContract } from "@herald/plugin-qa-channel/contract";
import { googleChatHarness } from "./testing/harness.ts";

describeChannelContract(googleChatHarness({ audience: "project_number" }), {
  areas: ["receive", "dedupe", "origin"],
});

/**
 * The delivery-sensitive contract areas against the QA channel's other delivery modes, so the
 * suite's expectations for reconciliation, at-least-once and hold are exercised too (the full
 * suite runs on the default, exactly-once mode through workspace discovery).
 */
import { qaHarness } from "../harness.ts";
import { describeChannelContract } from "./index.ts";

describeChannelContract(qaHarness({ delivery: "reconcile" }), { areas: ["unknown_send", "crash"] });
describeChannelContract(qaHarness({ delivery: "at_least_once" }), {
  areas: ["unknown_send", "crash"],
});
describeChannelContract(qaHarness({ delivery: "hold" }), { areas: ["unknown_send", "crash"] });

// The shared contract suite against the HTTP chat adapter and its fake (docs/plugin-authoring.md).
import { describeChannelContract } from "@herald/plugin-qa-channel/contract";
import { contractHarness } from "./testing/index.ts";

describeChannelContract(contractHarness);

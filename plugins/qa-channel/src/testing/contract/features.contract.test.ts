/**
 * [H23] The `features` area of the channel contract against the QA channel (every feature
 * declared, so no test skips): reactions, DMs, files (SIGKILL at every unit boundary), clicks,
 * ephemeral replies, history.
 */
import { qaHarness } from "../harness.ts";
import { describeChannelContract } from "./describeContract.ts";

describeChannelContract(qaHarness(), { areas: ["features"], variant: "features" });

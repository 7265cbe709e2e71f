/**
 * Every type the seed names for the `channel-message` surface is exported under that name
 * (seed `message-lifecycle.md`, "Message terms", "Receive context", "Send context", "Live
 * context", "Adapter surface", "Internal storage", "Failure classes"; issue H27). Checked by the
 * typechecker: a name missing from the subpath fails `pnpm typecheck`.
 */
import type * as core from "@herald/core";
import { describe, expectTypeOf, it } from "vitest";
import type * as sdk from "./index.ts";
import { defineChannelMessageAdapter, shouldDropHeraldEcho } from "./index.ts";

describe("seed names on @herald/plugin-sdk/channel-message (H27)", () => {
  it("H27 exports the seed's message, receipt, send, live and adapter types as herald's own", () => {
    expectTypeOf<sdk.ChannelMessage>().toEqualTypeOf<core.ChannelMessage>();
    expectTypeOf<sdk.MessageTarget>().toEqualTypeOf<core.MessageTarget>();
    expectTypeOf<sdk.MessageActor>().toEqualTypeOf<core.MessageActor>();
    expectTypeOf<sdk.MessageBody>().toEqualTypeOf<core.MessageBody>();
    expectTypeOf<sdk.MessageAttachment>().toEqualTypeOf<core.MessageAttachment>();
    expectTypeOf<sdk.MessageRelation>().toEqualTypeOf<core.MessageRelation>();
    expectTypeOf<sdk.MessageQuote>().toEqualTypeOf<core.MessageQuote>();
    expectTypeOf<sdk.MessageOrigin>().toEqualTypeOf<core.MessageOrigin>();
    expectTypeOf<sdk.MessageReceipt>().toEqualTypeOf<core.MessageReceipt>();
    expectTypeOf<sdk.MessageReceiptPart>().toEqualTypeOf<core.MessageReceiptPart>();
    expectTypeOf<sdk.MessageReceiveContext>().toEqualTypeOf<core.MessageReceiveContext>();
    expectTypeOf<sdk.ReceiveAckPolicy>().toEqualTypeOf<core.ReceiveAckPolicy>();
    expectTypeOf<sdk.MessageSendContext>().toEqualTypeOf<core.MessageSendContext>();
    expectTypeOf<sdk.DurableSendIntent>().toEqualTypeOf<core.DurableSendIntent>();
    expectTypeOf<sdk.MessageDurabilityPolicy>().toEqualTypeOf<core.MessageDurabilityPolicy>();
    expectTypeOf<sdk.RenderedMessageBatch>().toEqualTypeOf<core.RenderedMessageBatch>();
    expectTypeOf<sdk.RenderedMessageUnit>().toEqualTypeOf<core.RenderedMessageUnit>();
    expectTypeOf<sdk.LiveMessageState>().toEqualTypeOf<core.LiveMessageState>();
    expectTypeOf<sdk.LiveMessageUpdate>().toEqualTypeOf<core.LiveMessageUpdate>();
    expectTypeOf<sdk.LiveCancelReason>().toEqualTypeOf<core.LiveCancelReason>();
    expectTypeOf<sdk.MessageLiveAdapter>().toEqualTypeOf<core.MessageLiveAdapter>();
    expectTypeOf<sdk.ChannelMessageAdapter>().toEqualTypeOf<core.ChannelMessageAdapter>();
    expectTypeOf<sdk.MessageReceiveAdapter>().toEqualTypeOf<core.MessageReceiveAdapter>();
    expectTypeOf<sdk.MessageSendAdapter>().toEqualTypeOf<core.MessageSendAdapter>();
    expectTypeOf<sdk.MessageOriginAdapter>().toEqualTypeOf<core.MessageOriginAdapter>();
    expectTypeOf<sdk.MessageRenderAdapter>().toEqualTypeOf<core.MessageRenderAdapter>();
    expectTypeOf<sdk.MessageCapabilities>().toEqualTypeOf<core.MessageCapabilities>();
    expectTypeOf<sdk.MessageNormalizeContext>().toEqualTypeOf<core.MessageNormalizeContext>();
    expectTypeOf<sdk.MessageEventClass>().toEqualTypeOf<core.MessageEventClass>();
    expectTypeOf<sdk.MessagePreflightResult>().toEqualTypeOf<core.MessagePreflightResult>();
    expectTypeOf<sdk.DeliveryFailure>().toEqualTypeOf<core.DeliveryFailure>();
    expectTypeOf<sdk.DeliveryFailureKind>().toEqualTypeOf<core.DeliveryFailureKind>();
    expectTypeOf(defineChannelMessageAdapter).toBeFunction();
    expectTypeOf(shouldDropHeraldEcho).toBeFunction(); // seed `shouldDropNodmixEcho`
  });

  it("H27 exports the seed's other names as aliases of herald's types", () => {
    expectTypeOf<sdk.MessageSendIntent>().toEqualTypeOf<core.DurableSendIntent>();
    expectTypeOf<sdk.MessageLifecycleLogger>().toEqualTypeOf<core.HeraldLogger>();
    expectTypeOf<sdk.ReceiveDedupeResult>().toEqualTypeOf<core.DedupeAcquireResult>();
    expectTypeOf<sdk.ResolvedInboundMessage>().toEqualTypeOf<core.MessageReceiveContext>();
    expectTypeOf<sdk.DispatchResult>().toEqualTypeOf<core.ReceiveOutcome>();
    expectTypeOf<sdk.ReceiveAckController>().toEqualTypeOf<core.ReceiveTicket>();
    expectTypeOf<sdk.MessageRouteController>().toEqualTypeOf<core.ReceiveSource>();
    expectTypeOf<sdk.MessageSessionController>().toEqualTypeOf<core.Turn>();
    expectTypeOf<sdk.RecordResult["dedupeKey"]>().toEqualTypeOf<core.DedupeKey>();
  });

  it("H27 the send adapter has the seed's hooks and the live adapter the seed's lifecycle", () => {
    expectTypeOf<sdk.MessageSendAdapter>().toHaveProperty("afterSendSuccess");
    expectTypeOf<sdk.MessageSendAdapter>().toHaveProperty("afterCommit");
    expectTypeOf<sdk.MessageLiveAdapter>().toHaveProperty("begin");
    expectTypeOf<sdk.MessageLiveAdapter>().toHaveProperty("update");
    expectTypeOf<sdk.MessageLiveAdapter>().toHaveProperty("finalize");
    expectTypeOf<sdk.MessageLiveAdapter>().toHaveProperty("cancel");
  });
});

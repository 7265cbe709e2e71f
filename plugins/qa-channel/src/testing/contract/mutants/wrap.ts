/**
 * Building blocks of mutant adapters: each returns a copy of a real adapter with one deliberate
 * bug, written against the adapter contract only (no platform internals), so the catalog runs on
 * any channel's adapter. Used by {@link CHANNEL_MUTANTS}.
 *
 * @module
 */
import {
  type ChannelMessageAdapter,
  type ChannelReceiverSink,
  type ClassifiedFailure,
  type MessageEventClass,
  type MessageReceiveAdapter,
  type MessageSendContext,
  PlatformNetworkError,
} from "@herald/plugin-sdk/channel-message";

/** A classification and the error it came from. */
export type Classified = { failure: ClassifiedFailure; error: unknown };

/** Whether the error got no answer from the platform for `reason` (reset, timeout, refused…). */
export function noAnswer(error: unknown, ...reasons: string[]): boolean {
  return error instanceof PlatformNetworkError && reasons.includes(error.reason);
}

/** Whether the platform answered (an HTTP error rather than no answer at all). */
export function answered(error: unknown): boolean {
  return !(error instanceof PlatformNetworkError);
}

/** The adapter with `classifyError` rewritten by `mutate` (which returns the failure to use). */
export function mutateClassify(
  adapter: ChannelMessageAdapter,
  mutate: (c: Classified) => ClassifiedFailure,
): ChannelMessageAdapter {
  const send = adapter.send;
  return {
    ...adapter,
    send: {
      ...send,
      classifyError: (error) => mutate({ failure: send.classifyError(error), error }),
    },
  };
}

/** The adapter with every send / edit / delete call context rewritten by `mutate`. */
export function mutateSendContext(
  adapter: ChannelMessageAdapter,
  mutate: (ctx: MessageSendContext, index: number) => MessageSendContext,
): ChannelMessageAdapter {
  const send = adapter.send;
  return {
    ...adapter,
    send: {
      ...send,
      send: (ctx, unit) => send.send.call(send, mutate(ctx, unit.index), unit),
      ...(send.edit
        ? {
            edit: (ctx, target, unit) =>
              send.edit?.call(send, mutate(ctx, unit.index), target, unit) as ReturnType<
                NonNullable<typeof send.edit>
              >,
          }
        : {}),
    },
  };
}

/** The adapter with `send.send`'s receipt part rewritten by `mutate`. */
export function mutateSendReceipt(
  adapter: ChannelMessageAdapter,
  mutate: (
    part: Awaited<ReturnType<ChannelMessageAdapter["send"]["send"]>>,
    ctx: MessageSendContext,
    index: number,
  ) => Awaited<ReturnType<ChannelMessageAdapter["send"]["send"]>>,
): ChannelMessageAdapter {
  const send = adapter.send;
  return {
    ...adapter,
    send: {
      ...send,
      send: async (ctx, unit) => mutate(await send.send.call(send, ctx, unit), ctx, unit.index),
    },
  };
}

/**
 * The receive adapter whose self check takes every bot author for us: a message classified
 * `isBotAuthor` also names our own ids among its authors (core drops it as our echo).
 */
export function otherBotsAreSelf(receive: MessageReceiveAdapter): MessageReceiveAdapter {
  return {
    ...receive,
    classify: async (message, raw): Promise<MessageEventClass> => {
      const event: MessageEventClass = (await receive.classify?.call(receive, message, raw)) ?? {
        eventType: "message",
        eventTypes: ["message"],
        isBotAuthor: message.sender?.isBot === true,
        isRoomish: message.target.kind !== "direct",
        mentionsSelf: message.mentions?.self === true,
        ...(message.sender ? { authorIds: [message.sender.id] } : {}),
      };
      if (!event.isBotAuthor) return event;
      const self = receive.selfIds?.call(receive, message.accountId) ?? [];
      return { ...event, authorIds: [...(event.authorIds ?? []), ...self] };
    },
  };
}

/** The adapter whose `send.edit` swallows every error (reports the old target as edited). */
export function swallowEditErrors(adapter: ChannelMessageAdapter): ChannelMessageAdapter {
  const send = adapter.send;
  const edit = send.edit;
  if (!edit) return adapter;
  return {
    ...adapter,
    send: {
      ...send,
      edit: async (ctx, target, unit) => {
        try {
          return await edit.call(send, ctx, target, unit);
        } catch {
          return { ...target, kind: unit.kind, index: unit.index };
        }
      },
    },
  };
}

/** The adapter whose `send.delete` swallows every error. */
export function swallowDeleteErrors(adapter: ChannelMessageAdapter): ChannelMessageAdapter {
  const send = adapter.send;
  const remove = send.delete;
  if (!remove) return adapter;
  return {
    ...adapter,
    send: {
      ...send,
      delete: async (ctx, target) => {
        await remove.call(send, ctx, target).catch(() => {});
      },
    },
  };
}

/**
 * A receiver sink whose watermark trackers complete every id as soon as it is tracked, before
 * the event's work is acked. The work itself starts `workDelayMs` later (a slow handler), so the
 * early watermark is always persisted first — the mutant is killed deterministically.
 */
export function watermarkBeforeAck(
  sink: ChannelReceiverSink,
  workDelayMs = 200,
): ChannelReceiverSink {
  return new Proxy(sink, {
    get(target, prop, receiver) {
      if (prop === "receive") {
        return (...args: Parameters<ChannelReceiverSink["receive"]>) => {
          const later = new Promise((resolve) => setTimeout(resolve, workDelayMs)).then(() =>
            target.receive(...args),
          );
          return { ack: later.then((t) => t.ack), done: later.then((t) => t.done) };
        };
      }
      if (prop !== "watermark") return Reflect.get(target, prop, receiver);
      return (...args: Parameters<ChannelReceiverSink["watermark"]>) => {
        const tracker = target.watermark(...args);
        return new Proxy(tracker, {
          get(t, p, r) {
            if (p !== "track") return Reflect.get(t, p, r);
            return async (id: Parameters<typeof tracker.track>[0], ack: Promise<unknown>) => {
              ack.catch(() => {});
              t.begin(id);
              await t.complete(id);
            };
          },
        });
      };
    },
  });
}

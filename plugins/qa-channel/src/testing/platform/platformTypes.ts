/**
 * The data types of the QA platform (bots, chats), and {@link QaPlatformCore}: the part of a
 * `QaPlatform` its route modules (`apiKit.ts`, `botApi.ts`, `streamApi.ts`, `webApi.ts`) use.
 * They take this interface, not the class, so no module of the platform imports `QaPlatform.ts`
 * back; this module imports nothing of the platform.
 *
 * @module
 */
import type {
  FakePlatformServer,
  PlatformFaults,
  VisibleAuthor,
  VisibleMessage,
  VisibleState,
} from "@herald/plugin-sdk/testing";
import type { QaWireButton, QaWireEvent, QaWireMessage } from "../../wire.ts";
import type { QaExtras } from "./QaExtras.ts";

/** A bot account on the QA platform. Its token is `<id>:<secret>`. */
export type QaBot = { id: string; name: string; token: string };

/** A chat on the QA platform. */
export type QaChat = { id: string; type: "direct" | "group"; title?: string };

/**
 * What the route modules use of a `QaPlatform` (which implements it): its server and visible
 * state, its limits, and the chats, bots and event log behind them. See `QaPlatform` for each
 * member.
 */
export interface QaPlatformCore {
  readonly server: FakePlatformServer;
  readonly state: VisibleState;
  /** Longest message text, in UTF-16 units. */
  readonly maxTextLength: number;
  /** The chat the web page opens by default. */
  readonly webChat: string;
  readonly faults: PlatformFaults;
  botByToken(token: string): QaBot | undefined;
  chat(id: string): QaChat | undefined;
  createChat(chat: Partial<QaChat> & Pick<QaChat, "type">): QaChat;
  post(input: {
    chat: string;
    text: string;
    author?: Partial<VisibleAuthor>;
    thread?: string;
  }): VisibleMessage;
  threadExists(chat: string, thread: string): boolean;
  eventsAfter(since: number): QaWireEvent[];
  onEvent(listener: () => void): () => void;
  toWire(m: VisibleMessage): QaWireMessage;
  /** Files, buttons, reactions, ephemeral messages ([H23]). */
  readonly extras: QaExtras;
  postWithExtras<T>(extras: { fileIds?: string[]; buttons?: QaWireButton[] }, post: () => T): T;
  react(input: {
    messageId: string;
    emoji: string;
    user: { id: string; name?: string; bot?: boolean };
    remove?: boolean;
  }): boolean;
  click(input: {
    messageId: string;
    actionId: string;
    user: { id: string; name?: string };
  }): QaWireEvent;
}

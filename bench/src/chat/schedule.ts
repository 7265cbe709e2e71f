/**
 * The schedule every chat sender gets, on every channel: `count` messages over the targets of
 * that channel's fake (Telegram private chats, Slack channels, Discord text channels, Google
 * Chat spaces), message `i` to target `i mod targets` with the text `t<i>` (its payload id).
 *
 * @module
 */

/** The channels of the chat bench. */
export const CHAT_CHANNELS = ["telegram", "slack", "discord", "googlechat"] as const;

/** One channel of the chat bench. */
export type ChatChannel = (typeof CHAT_CHANNELS)[number];

/** How a sender child reaches one channel's fake. */
export type ChatConnection = {
  channel: ChatChannel;
  /**
   * The fake's API base as the platform's SDKs take it: Telegram `apiRoot`, Slack
   * `slackApiUrl` (with the trailing `/`), Discord `apiBase` (without the version), Google
   * Chat `rootUrl` (with the trailing `/`).
   */
  apiUrl: string;
  /** The bot's credential on the fake (bot token, or Google Chat's OAuth access token). */
  token: string;
  /** Conversation ids on the fake (Telegram chat ids, Slack / Discord channel ids, space names). */
  targets: string[];
  /** Discord: the guild of the channels; Chat SDK's ids carry it. */
  guildId?: string;
  /** Discord: the bot's application id (Chat SDK's adapter requires it). */
  applicationId?: string;
  /** Slack: the app's signing secret (Chat SDK's adapter requires one in webhook mode). */
  signingSecret?: string;
};

/** What a sender child is given (JSON in argv). */
export type SenderConfig = ChatConnection & {
  count: number;
  /** Where the sender keeps its state across restarts (herald's store, the app's done file). */
  stateDir: string;
  /**
   * herald only: plugin options on top of the plugin's defaults (absent: the defaults), e.g.
   * Telegram's `{ reconcile: "probe" }`.
   */
  herald?: Record<string, unknown>;
};

/** Message `i` of the schedule. */
export const scheduled = (c: SenderConfig, i: number) => ({
  id: `t${i}`,
  target: c.targets[i % c.targets.length] as string,
  text: `t${i}`,
});

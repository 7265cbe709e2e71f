/**
 * The schedule both Telegram senders get: `count` messages over `chats` private chats of the
 * fake Bot API, message `i` to chat `i mod chats` with the text `t<i>` (its payload id).
 *
 * @module
 */

/** What a sender child is given (JSON in argv). */
export type SenderConfig = {
  apiRoot: string;
  token: string;
  chatIds: number[];
  count: number;
  /** Where the sender keeps its state across restarts (herald's store, the app's done file). */
  stateDir: string;
  /** herald only: the plugin options under test (absent: the plugin's defaults). */
  herald?: { unknownSendPolicy?: "hold" | "at_least_once"; reconcile?: "off" | "probe" };
};

/** Message `i` of the schedule. */
export const scheduled = (c: SenderConfig, i: number) => ({
  id: `t${i}`,
  chatId: c.chatIds[i % c.chatIds.length] as number,
  text: `t${i}`,
});

/**
 * `@herald/example-plugin-httpchat`: a herald channel plugin for the minimal HTTP chat API of
 * this package's README, written from `docs/plugin-authoring.md` ("The adapter contract").
 *
 * @packageDocumentation
 */
import * as herald from "@herald/plugin-sdk/channel-message";
import { HTTPCHAT, httpChatClient } from "./client.ts";
import { createHttpChatReceiver } from "./receive.ts";
import { createHttpChatAdapter } from "./send.ts";

export * from "./client.ts";
export { createHttpChatReceiver, decodeOrigin } from "./receive.ts";
export * from "./send.ts";

const { z } = herald;

/** The API's longest message text, in UTF-16 units. */
export const HTTPCHAT_MAX_TEXT = 2_000;

/** Account config; `tokenEnv` / `webhookSecretEnv` name the env vars holding the secrets. */
export const httpChatConfigSchema = z.strictObject({
  baseUrl: z.url(),
  tokenEnv: z.string().min(1),
  webhookSecretEnv: z.string().min(1),
  /** Longest part, in UTF-16 units. @defaultValue the API's limit, {@link HTTPCHAT_MAX_TEXT} */
  maxLength: z.number().int().min(16).max(HTTPCHAT_MAX_TEXT).default(HTTPCHAT_MAX_TEXT),
  /** Per call, in ms. @defaultValue 10_000 */
  requestTimeoutMs: z.number().int().positive().default(10_000),
});
/** A validated account config. */
export type HttpChatConfig = herald.z.infer<typeof httpChatConfigSchema>;

/** The plugin: `createAccount` asks `GET /v1/me` who the bot is; a rejected token stops it. */
export default herald.defineChannelPlugin<HttpChatConfig>({
  id: HTTPCHAT,
  configSchema: httpChatConfigSchema,
  createAdapter: (c, deps) => createHttpChatAdapter(c, deps.secret(c.tokenEnv)),
  async createAccount(c, deps) {
    const token = deps.secret(c.tokenEnv);
    const me = await herald.verifyCredentials(
      () => httpChatClient(c, token)<{ id: string; name: string }>("GET /v1/me"),
      { channel: HTTPCHAT, accountId: deps.accountId, fix: `check ${c.tokenEnv}` },
    );
    return {
      adapter: createHttpChatAdapter(c, token, me.id),
      receiver: createHttpChatReceiver(deps.secret(c.webhookSecretEnv), deps.sink),
      identity: { id: me.id, name: me.name },
      close: async () => {},
    };
  },
});

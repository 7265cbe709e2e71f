/**
 * Gateway test bench: channel accounts over core's scripted {@link FakePlatform} (one platform
 * per account, standing in for its credentials), loaded the way `loadPlugins` would, and a
 * gateway over an in-memory SQLite store without HTTP.
 *
 * @module
 */
import { type ChannelMessageAdapter, SqliteStateStore, silentLogger } from "@herald/core";
import {
  createFakeAdapter,
  type FakeAdapterOptions,
  FakePlatform,
  inProcessTransport,
} from "@herald/core/testing";
import { z } from "zod";
import { createGateway, type Gateway, type GatewayOptions } from "../gateway.ts";
import type { LoadedChannel } from "../plugins/loadPlugins.ts";

/** A minimal inbound shape for the bench: `{ id, chat, from, isBot?, text, mention? }`. */
export type BenchUpdate = {
  id: string;
  chat: string;
  from: string;
  isBot?: boolean;
  text: string;
  /** Whether the message mentions this bot. */
  mention?: boolean;
  /** A group chat unless false. @defaultValue true */
  group?: boolean;
  /** The platform message id, when it is not `<chat>:<id>` (a message the fake platform posted). */
  ref?: string;
};

/** The receive half of a bench account: normalizes {@link BenchUpdate}s; `selfId` is the bot. */
export function benchReceive(
  channel: string,
  selfId: string,
): NonNullable<ChannelMessageAdapter["receive"]> {
  return {
    normalize(raw, ctx) {
      const u = raw as BenchUpdate;
      return {
        id: `${channel}:${u.chat}:${u.id}`,
        channel,
        direction: "inbound",
        ...(ctx.accountId === undefined ? {} : { accountId: ctx.accountId }),
        target: { kind: u.group === false ? "direct" : "group", id: u.chat },
        sender: { id: u.from, isBot: u.isBot ?? false },
        body: { markdown: u.text },
        platformMessageId: u.ref ?? `${u.chat}:${u.id}`,
        threadAnchor: { threadId: `thread-${u.id}` },
        mentions: { self: u.mention ?? false },
        timestamp: ctx.receivedAt,
      };
    },
    selfIds: () => [selfId],
  };
}

/** One bench account: the platform it talks to and the adapter. */
export type BenchAccount = {
  account: string;
  platform: FakePlatform;
  adapter: ChannelMessageAdapter;
  channel: LoadedChannel;
};

/** Builds one account of `channel` over its own fake platform. */
export function benchAccount(
  channel: string,
  account: string,
  options: Omit<FakeAdapterOptions, "transport" | "id"> & {
    platform?: FakePlatform;
    clock?: () => number;
  } = {},
): BenchAccount {
  const { platform: given, clock, ...adapterOptions } = options;
  const platform = given ?? new FakePlatform(clock ? { clock } : {});
  const adapter: ChannelMessageAdapter = {
    ...createFakeAdapter({
      ...adapterOptions,
      id: channel,
      transport: inProcessTransport(platform),
    }),
    receive: benchReceive(channel, `bot-${account}`),
  };
  const deps = {
    accountId: account,
    logger: silentLogger,
    clock: clock ?? Date.now,
    secret: (name: string) => name,
  };
  const loaded: LoadedChannel = {
    index: 0,
    plugin: { id: channel, configSchema: z.unknown(), createAdapter: () => adapter },
    account,
    config: {},
    deps,
    adapter,
  };
  return { account, platform, adapter, channel: loaded };
}

/** A gateway over the bench accounts and an in-memory store (no HTTP server). */
export function benchGateway(
  accounts: readonly BenchAccount[],
  options: Partial<Omit<GatewayOptions, "channels">> & { clock?: () => number } = {},
): { gateway: Gateway; store: SqliteStateStore; close(): Promise<void> } {
  const { clock, ...rest } = options;
  const store =
    (rest.store as SqliteStateStore | undefined) ??
    new SqliteStateStore({ path: ":memory:", ...(clock ? { clock } : {}) });
  const gateway = createGateway({
    http: false,
    activityLog: false,
    delivery: { pollIntervalMs: 5 },
    ...rest,
    store,
    channels: accounts.map((a) => a.channel),
  });
  return {
    gateway,
    store,
    async close() {
      await gateway.stop(1_000);
      await store.close();
    },
  };
}

/**
 * A test bench for the plugin's own tests: a fake homeserver, the real adapter against it, and
 * a herald runtime on SQLite, closed when the test finishes.
 *
 * @module
 */
import type { ChannelMessageAdapter, MessageTarget } from "@herald/plugin-sdk/channel-message";
import {
  type DeliveryOptions,
  type MessageReceiveContext,
  openTestRun,
  type ReceiveRuntimeOptions,
  type TestRun,
} from "@herald/plugin-sdk/testing";
import { onTestFinished } from "vitest";
import { MatrixHttp } from "../client.ts";
import type { MatrixConfigInput } from "../config.ts";
import { lazyE2ee } from "../e2ee.ts";
import { createMatrixAdapter, createMatrixReceiver, type MatrixAccountParts } from "../index.ts";
import type { MatrixSyncReceiver } from "../receiver.ts";
import { EncryptedRooms } from "../rooms.ts";
import { FakeHomeserver, type FakeHomeserverOptions } from "./FakeHomeserver.ts";
import { connectionOf, type MatrixConnection, testConfig } from "./harness.ts";

/** A running bench. */
export type Bench = TestRun & {
  fake: FakeHomeserver;
  adapter: ChannelMessageAdapter;
  connection: MatrixConnection;
  /** The client and encrypted-room marks the adapter and the receiver share. */
  parts: MatrixAccountParts;
  /** Starts the account's `/sync` receiver (stopped when the test ends). */
  startReceiver(): Promise<MatrixSyncReceiver>;
  /** A new room with the bot, Alice and another bot; its target. */
  room(kind?: "group" | "direct"): { roomId: string; target: MessageTarget };
  /** An outbound message of the matrix channel. */
  say(
    target: MessageTarget,
    markdown: string,
    extra?: Parameters<TestRun["message"]>[3],
  ): ReturnType<TestRun["message"]>;
};

/** Options of {@link openBench}. */
export type BenchOptions = {
  fake?: FakeHomeserverOptions;
  /** An already running fake (a restart test opens a second bench on it). */
  on?: FakeHomeserver;
  config?: MatrixConfigInput | object;
  delivery?: DeliveryOptions;
  storePath?: string;
  /** Close the fake when the test ends. @defaultValue true unless `on` is given */
  closeFake?: boolean;
  receive?: Omit<ReceiveRuntimeOptions, "handler">;
  handler?: (ctx: MessageReceiveContext) => Promise<void> | void;
};

/** Opens a bench for the current test. */
export async function openBench(options: BenchOptions = {}): Promise<Bench> {
  const fake = options.on ?? (await FakeHomeserver.start(options.fake));
  const connection = connectionOf(fake);
  const config = testConfig(connection, options.config);
  const identity = { userId: connection.userId, deviceId: connection.deviceId };
  const parts: MatrixAccountParts = {
    http: new MatrixHttp({
      homeserverUrl: connection.homeserverUrl,
      accessToken: connection.accessToken,
      ...identity,
      timeoutMs: config.requestTimeoutMs,
    }),
    rooms: new EncryptedRooms(),
  };
  // With `encryption` configured, one engine for the adapter and the receiver, closed (its store
  // saved) when the bench closes — a later bench on the same storePath is a restarted bot.
  const crypto = config.encryption
    ? lazyE2ee({ http: parts.http, storePath: config.encryption.storePath })
    : undefined;
  if (crypto) parts.e2ee = crypto.ref;
  const adapter = createMatrixAdapter(config, connection.accessToken, identity, parts);
  const run = await openTestRun({
    adapters: [adapter],
    accountId: "main",
    ...(options.receive ? { receive: options.receive } : {}),
    ...(options.handler ? { handler: options.handler } : {}),
    ...(options.delivery ? { delivery: options.delivery } : {}),
    ...(options.storePath ? { storePath: options.storePath } : {}),
  });
  if (crypto) run.onClose(() => crypto.close());
  onTestFinished(async () => {
    await run.close();
    if (options.closeFake ?? !options.on) await fake.close();
  });
  return Object.assign(run, {
    fake,
    adapter,
    connection,
    parts,
    async startReceiver() {
      const receiver = createMatrixReceiver(
        config,
        connection.accessToken,
        run.sink(adapter.id, "main"),
        identity,
        parts,
      );
      run.onClose(() => receiver.stop?.());
      await receiver.start?.();
      return receiver;
    },
    room(kind: "group" | "direct" = "group") {
      const room = fake.createRoom({ direct: kind === "direct" });
      return { roomId: room.id, target: { kind, id: room.id } as MessageTarget };
    },
    say: (target: MessageTarget, markdown: string, extra?: Parameters<TestRun["message"]>[3]) =>
      run.message(adapter.id, target, markdown, extra),
  });
}

/**
 * A test bench for the plugin's own tests: a fake homeserver, the real adapter against it, and
 * a herald runtime on SQLite, closed when the test finishes.
 *
 * @module
 */
import type { ChannelMessageAdapter, MessageTarget } from "@herald/plugin-sdk/channel-message";
import { type DeliveryOptions, openTestRun, type TestRun } from "@herald/plugin-sdk/testing";
import { onTestFinished } from "vitest";
import type { MatrixConfigInput } from "../config.ts";
import { createMatrixAdapter } from "../index.ts";
import { FakeHomeserver, type FakeHomeserverOptions } from "./FakeHomeserver.ts";
import { connectionOf, type MatrixConnection, testConfig } from "./harness.ts";

/** A running bench. */
export type Bench = TestRun & {
  fake: FakeHomeserver;
  adapter: ChannelMessageAdapter;
  connection: MatrixConnection;
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
};

/** Opens a bench for the current test. */
export async function openBench(options: BenchOptions = {}): Promise<Bench> {
  const fake = options.on ?? (await FakeHomeserver.start(options.fake));
  const connection = connectionOf(fake);
  const config = testConfig(connection, options.config);
  const adapter = createMatrixAdapter(config, connection.accessToken, {
    userId: connection.userId,
    deviceId: connection.deviceId,
  });
  const run = await openTestRun({
    adapters: [adapter],
    accountId: "main",
    ...(options.delivery ? { delivery: options.delivery } : {}),
    ...(options.storePath ? { storePath: options.storePath } : {}),
  });
  onTestFinished(async () => {
    await run.close();
    if (options.closeFake ?? !options.on) await fake.close();
  });
  return Object.assign(run, {
    fake,
    adapter,
    connection,
    room(kind: "group" | "direct" = "group") {
      const room = fake.createRoom({ direct: kind === "direct" });
      return { roomId: room.id, target: { kind, id: room.id } as MessageTarget };
    },
    say: (target: MessageTarget, markdown: string, extra?: Parameters<TestRun["message"]>[3]) =>
      run.message(adapter.id, target, markdown, extra),
  });
}

/**
 * How a contract-test child process gets its harness back: `import(module.url)` and the named
 * export, called with `module.args` when it is a factory (DESIGN §9: the child rebuilds the
 * adapter from the harness, with the channel's real client). Free of Vitest imports.
 *
 * @module
 */
import type { ChannelMessageAdapter } from "@herald/plugin-sdk/channel-message";
import { SqliteStateStore, scaledMs } from "@herald/plugin-sdk/testing";
import type { ContractHarness, ContractHarnessModule, JsonValue } from "./types.ts";

/**
 * Loads the harness a {@link ContractHarnessModule} names.
 *
 * @throws Error when the module's export is not a contract harness (no `createAdapter`).
 */
export async function loadHarness(module: ContractHarnessModule): Promise<ContractHarness> {
  const mod = (await import(module.url)) as Record<string, unknown>;
  const name = module.exportName ?? "contractHarness";
  const exported = mod[name];
  const harness = (typeof exported === "function" ? await exported(module.args) : exported) as
    | ContractHarness
    | undefined;
  if (!harness?.createAdapter) {
    throw new Error(`${module.url} exports no contract harness as "${name}"`);
  }
  return harness;
}

/** Polls `done` every 10 ms until it holds; false when `timeoutMs` passed first. */
export async function waitUntil(done: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + scaledMs(timeoutMs);
  while (!(await done())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return true;
}

/** What every crash child's config (JSON in argv[2]) carries. */
export type ChildBaseConfig = {
  module: ContractHarnessModule;
  connection: JsonValue;
  storePath: string;
  accountId: string;
};

/** What {@link openChild} gives a child script. */
export type OpenedChild<T extends ChildBaseConfig> = {
  config: T;
  harness: ContractHarness;
  adapter: ChannelMessageAdapter;
  store: SqliteStateStore;
};

/**
 * A child script's start: the config the parent handed in `process.argv[2]` (JSON), the harness
 * it names, that harness's adapter on `config.connection` and the SQLite store at
 * `config.storePath`.
 *
 * @throws Error when the module names no contract harness (see {@link loadHarness}).
 */
export async function openChild<T extends ChildBaseConfig>(): Promise<OpenedChild<T>> {
  const config = JSON.parse(process.argv[2] ?? "{}") as T;
  const harness = await loadHarness(config.module);
  const adapter = harness.createAdapter(config.connection);
  const store = new SqliteStateStore({ path: config.storePath });
  return { config, harness, adapter, store };
}

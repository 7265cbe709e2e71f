/**
 * [H24] The account path with encryption: `createMatrixAccount` opens the crypto store at start
 * (its passphrase read as a secret, never from the config), shares one engine between its
 * adapter and receiver, and closes it (the store saved) with the account; a store it cannot read
 * stops the account with a `ChannelAccountError` naming the path and the fix.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ChannelAccountError } from "@herald/plugin-sdk/channel-message";
import { eventually, openTestRun } from "@herald/plugin-sdk/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { matrixConfigSchema } from "./config.ts";
import { CRYPTO_STORE_FILE } from "./cryptoStore.ts";
import { createMatrixAccount } from "./index.ts";
import { E2eeUser } from "./testing/e2eeUser.ts";
import { ALICE, FAKE_BOT, FakeHomeserver } from "./testing/FakeHomeserver.ts";

const SECRETS: Record<string, string> = {
  MATRIX_ACCESS_TOKEN: FAKE_BOT.accessToken,
  MATRIX_STORE_PASSPHRASE: "correct horse battery staple",
};

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "herald-matrix-e2ee-account-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

async function openAccount(url: string, storePath: string) {
  const run = await openTestRun({ adapters: [], accountId: "main" });
  onTestFinished(() => run.close());
  const config = matrixConfigSchema.parse({
    homeserverUrl: url,
    deviceId: FAKE_BOT.deviceId,
    sync: { pollTimeoutMs: 300, retryDelayMs: 50 },
    encryption: { storePath, storePassphraseEnv: "MATRIX_STORE_PASSPHRASE" },
  });
  const asked: string[] = [];
  const account = await createMatrixAccount(config, {
    accountId: "main",
    logger: run.logger,
    clock: Date.now,
    secret: (name) => {
      asked.push(name);
      return SECRETS[name] ?? "";
    },
    sink: run.sink("matrix", "main"),
    signal: new AbortController().signal,
  });
  return { run, account, asked };
}

describe("[H24] encrypted account", () => {
  it("opens the store at start with its passphrase (a secret), decrypts and answers through one engine, and saves the store on close", async () => {
    const dir = tempDir();
    const fake = await FakeHomeserver.start();
    onTestFinished(() => fake.close());
    const room = fake.createRoom({ direct: true, encrypted: true });
    const storePath = join(dir, "crypto");
    const { run, account, asked } = await openAccount(fake.url, storePath);
    expect(asked).toEqual(["MATRIX_ACCESS_TOKEN", "MATRIX_STORE_PASSPHRASE"]);
    // Opened at start: the device keys are on the homeserver before the receiver runs.
    expect(fake.keys.devices.get(FAKE_BOT.userId)?.has(FAKE_BOT.deviceId)).toBe(true);
    run.runtime.addAdapter(account.adapter, "main");
    await account.receiver?.start?.();

    const alice = await E2eeUser.start(fake.url, ALICE, join(dir, "alice"));
    onTestFinished(() => alice.close());
    await alice.sync();
    await alice.send(room.id, "through the account");
    await eventually(
      () => run.handled.map((h) => h.input.body?.markdown),
      (bodies) => bodies.includes("through the account"),
      { what: "the encrypted message handled" },
    );
    await run.runtime.send(run.message("matrix", { kind: "direct", id: room.id }, "answered"));
    const seen = await alice.syncUntil((s) =>
      s.some((e) => e.sender === FAKE_BOT.userId && e.content.body === "answered"),
    );
    expect(seen.filter((e) => e.content.body === "answered")).toHaveLength(1);

    await account.receiver?.stop?.();
    await account.close();
    expect(readFileSync(join(storePath, CRYPTO_STORE_FILE)).length).toBeGreaterThan(0);
    // The store's values are encrypted under the passphrase: another one cannot open it.
    SECRETS.MATRIX_STORE_PASSPHRASE = "a different passphrase";
    onTestFinished(() => {
      SECRETS.MATRIX_STORE_PASSPHRASE = "correct horse battery staple";
    });
    const refused = await openAccount(fake.url, storePath).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ChannelAccountError);
  });

  it("an unreadable crypto store stops the account with ChannelAccountError naming storePath and the fix", async () => {
    const dir = tempDir();
    const fake = await FakeHomeserver.start();
    onTestFinished(() => fake.close());
    const storePath = join(dir, "crypto");
    await openAccount(fake.url, storePath).then(({ account }) => account.close());
    writeFileSync(join(storePath, CRYPTO_STORE_FILE), "damaged");
    const failed = await openAccount(fake.url, storePath).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toBeInstanceOf(ChannelAccountError);
    expect(String((failed as Error).message)).toContain(storePath);
    expect((failed as { fix?: string }).fix).toMatch(/restore the store from its backup/);
  });
});

describe("[H24] encryption config", () => {
  it("defaults decryptWaitMs to 60 s, needs a storePath, and names a bad passphrase variable", () => {
    const base = { homeserverUrl: "https://matrix.example.org", deviceId: "HERALDBOT" };
    expect(
      matrixConfigSchema.parse({ ...base, encryption: { storePath: ".herald/crypto" } }).encryption,
    ).toEqual({ storePath: ".herald/crypto", decryptWaitMs: 60_000 });
    expect(matrixConfigSchema.parse(base).encryption).toBeUndefined();
    const missing = matrixConfigSchema.safeParse({ ...base, encryption: {} });
    expect(missing.error?.issues[0]?.path).toEqual(["encryption", "storePath"]);
    const badEnv = matrixConfigSchema.safeParse({
      ...base,
      encryption: { storePath: "x", storePassphraseEnv: "not a name" },
    });
    expect(badEnv.error?.issues[0]?.path).toEqual(["encryption", "storePassphraseEnv"]);
  });
});

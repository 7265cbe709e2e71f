/**
 * The crypto store file: IndexedDB databases saved and restored whole (tables, key paths,
 * indexes, binary values), under a fresh prefix per open; an unreadable file is an error, never
 * silently replaced (a new device would lose every room key).
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { CRYPTO_STORE_FILE, CryptoStoreFile } from "./cryptoStore.ts";

type Db = {
  transaction(
    names: string[],
    mode: string,
  ): { objectStore(n: string): Store; oncomplete: unknown };
  close(): void;
  objectStoreNames: Iterable<string>;
};
type Store = {
  put(v: unknown, k?: unknown): void;
  getAll(): { onsuccess: unknown; result: unknown[] };
  createIndex(n: string, p: string, o: object): void;
  indexNames: Iterable<string>;
};
type Factory = {
  open(
    name: string,
    version?: number,
  ): {
    onupgradeneeded: unknown;
    onsuccess: unknown;
    onerror: unknown;
    result: Db & { createObjectStore(n: string, o: object): Store };
  };
};

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "herald-matrix-cryptostore-"));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

const idb = () => (globalThis as unknown as { indexedDB: Factory }).indexedDB;

function openDb(
  name: string,
  upgrade?: (db: Db & { createObjectStore(n: string, o: object): Store }) => void,
) {
  return new Promise<Db>((resolve, reject) => {
    const request = idb().open(name, 3);
    request.onupgradeneeded = () => upgrade?.(request.result);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(new Error("open failed"));
  });
}

async function readAll(db: Db, store: string): Promise<unknown[]> {
  const tx = db.transaction([store], "readonly");
  const request = tx.objectStore(store).getAll();
  return new Promise((resolve) => {
    request.onsuccess = () => resolve(request.result);
  });
}

describe("crypto store file", () => {
  it("saves every database of its prefix and restores it under a new prefix: tables, indexes, binary values", async () => {
    const dir = tempDir();
    const first = await CryptoStoreFile.open(dir);
    const db = await openDb(`${first.prefix}::matrix-sdk-crypto`, (created) => {
      const inline = created.createObjectStore("sessions", { keyPath: "id" });
      inline.createIndex("by_room", "room", { unique: false });
      created.createObjectStore("core", {});
    });
    await new Promise<void>((resolve) => {
      const tx = db.transaction(["sessions", "core"], "readwrite");
      tx.objectStore("sessions").put({ id: "s1", room: "!r", pickle: new Uint8Array([1, 2, 3]) });
      tx.objectStore("core").put(new Uint8Array([9, 8]), "account");
      tx.oncomplete = () => resolve();
    });
    db.close();
    await first.save();
    expect(readdirSync(dir)).toEqual([CRYPTO_STORE_FILE]);

    const second = await CryptoStoreFile.open(dir);
    expect(second.prefix).not.toBe(first.prefix);
    const restored = await openDb(`${second.prefix}::matrix-sdk-crypto`);
    expect([...restored.objectStoreNames].sort()).toEqual(["core", "sessions"]);
    expect(await readAll(restored, "sessions")).toEqual([
      { id: "s1", room: "!r", pickle: new Uint8Array([1, 2, 3]) },
    ]);
    expect(await readAll(restored, "core")).toEqual([new Uint8Array([9, 8])]);
    const tx = restored.transaction(["sessions"], "readonly");
    expect([...tx.objectStore("sessions").indexNames]).toEqual(["by_room"]);
    restored.close();
  });

  it("an unreadable store file stops the open with an error naming it; it is not replaced", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, CRYPTO_STORE_FILE), "not a store");
    await expect(CryptoStoreFile.open(dir)).rejects.toThrow(
      `matrix crypto store ${join(dir, CRYPTO_STORE_FILE)}`,
    );
  });
});

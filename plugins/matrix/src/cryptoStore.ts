/**
 * The bot's end-to-end crypto store on disk (docs/channels/matrix.md, "Encryption").
 *
 * matrix-js-sdk's Rust crypto (`@matrix-org/matrix-sdk-crypto-wasm`) keeps its state — the
 * device's identity keys, Olm sessions, Megolm room keys, tracked devices — either in memory or
 * in **IndexedDB**; it has no other backend. Node has no IndexedDB, so this module gives the
 * Rust crypto `fake-indexeddb` (a complete IndexedDB in JavaScript) and makes it durable: the
 * crypto databases are loaded from one file when the store is opened and written back —
 * atomically, a temporary file `fsync`ed and renamed — by {@link CryptoStoreFile.save}, which
 * the engine calls after every change that must survive a crash (before the next `/sync`
 * acknowledges to-device messages, after a room key was shared).
 *
 * The file is `<storePath>/crypto.idb.v8` (Node's structured-clone serialization, so the
 * store's binary values round-trip exactly). The Rust store itself encrypts its values when the
 * engine is given a passphrase (`encryption.storePassphraseEnv`); the file is then only
 * ciphertext plus table names.
 *
 * @module
 */
import { randomUUID } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { open, rename } from "node:fs/promises";
import { join } from "node:path";
import { deserialize, serialize } from "node:v8";

/** The file inside `storePath` that holds the crypto databases. */
export const CRYPTO_STORE_FILE = "crypto.idb.v8";

type IndexShape = {
  name: string;
  keyPath: string | string[];
  unique: boolean;
  multiEntry: boolean;
};
type StoreShape = {
  name: string;
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  indexes: IndexShape[];
  records: Array<[IDBValidKey, unknown]>;
};
type DatabaseShape = { name: string; version: number; stores: StoreShape[] };
type StoreDump = { format: 1; databases: DatabaseShape[] };

// The slice of the IndexedDB API used here (the project compiles without the DOM library).
type IDBValidKey = unknown;
type IDBRequest<T> = {
  result: T;
  error: unknown;
  onsuccess: (() => void) | null;
  onerror: (() => void) | null;
};
type IDBOpenDBRequest = IDBRequest<IDBDatabase> & { onupgradeneeded: (() => void) | null };
type IDBIndex = {
  keyPath: string | string[];
  unique: boolean;
  multiEntry: boolean;
};
type IDBObjectStore = {
  keyPath: string | string[] | null;
  autoIncrement: boolean;
  indexNames: Iterable<string>;
  index(name: string): IDBIndex;
  getAll(): IDBRequest<unknown[]>;
  getAllKeys(): IDBRequest<IDBValidKey[]>;
  put(value: unknown, key?: IDBValidKey): unknown;
  createIndex(
    name: string,
    keyPath: string | string[],
    options: { unique: boolean; multiEntry: boolean },
  ): unknown;
};
type IDBTransaction = {
  objectStore(name: string): IDBObjectStore;
  error: unknown;
  oncomplete: (() => void) | null;
  onerror: (() => void) | null;
  onabort: (() => void) | null;
};
type IDBDatabase = {
  version: number;
  objectStoreNames: Iterable<string>;
  transaction(names: string[], mode: "readonly" | "readwrite"): IDBTransaction;
  createObjectStore(
    name: string,
    options: { keyPath: string | string[] | null; autoIncrement: boolean },
  ): IDBObjectStore;
  close(): void;
};
type IDBFactory = {
  open(name: string, version?: number): IDBOpenDBRequest;
  databases(): Promise<Array<{ name?: string; version?: number }>>;
};

/**
 * Installs `fake-indexeddb` as the process's IndexedDB when there is none (Node): the Rust
 * crypto looks IndexedDB up on the global object.
 */
async function ensureIndexedDb(): Promise<IDBFactory> {
  const global = globalThis as { indexedDB?: IDBFactory };
  if (global.indexedDB === undefined) {
    // @ts-expect-error -- a side-effect module without type declarations
    await import("fake-indexeddb/auto");
  }
  return global.indexedDB as IDBFactory;
}

const done = <T>(request: IDBRequest<T>): Promise<T> =>
  new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });

const finished = (tx: IDBTransaction): Promise<void> =>
  new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error);
    tx.onabort = () => reject(tx.error ?? new Error("IndexedDB transaction aborted"));
  });

function openDb(
  factory: IDBFactory,
  name: string,
  version?: number,
  upgrade?: (db: IDBDatabase) => void,
): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = version === undefined ? factory.open(name) : factory.open(name, version);
    request.onupgradeneeded = () => upgrade?.(request.result);
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
}

async function dumpDb(factory: IDBFactory, fullName: string, name: string): Promise<DatabaseShape> {
  const db = await openDb(factory, fullName);
  try {
    const names = [...db.objectStoreNames];
    const stores: StoreShape[] = [];
    if (names.length > 0) {
      // One read transaction over every table: a consistent snapshot.
      const tx = db.transaction(names, "readonly");
      for (const storeName of names) {
        const store = tx.objectStore(storeName);
        const [keys, values] = await Promise.all([done(store.getAllKeys()), done(store.getAll())]);
        stores.push({
          name: storeName,
          keyPath: store.keyPath as string | string[] | null,
          autoIncrement: store.autoIncrement,
          indexes: [...store.indexNames].map((indexName) => {
            const index = store.index(indexName);
            return {
              name: indexName,
              keyPath: index.keyPath as string | string[],
              unique: index.unique,
              multiEntry: index.multiEntry,
            };
          }),
          records: keys.map((key, i) => [key, values[i]]),
        });
      }
      await finished(tx);
    }
    return { name, version: db.version, stores };
  } finally {
    db.close();
  }
}

async function restoreDb(factory: IDBFactory, fullName: string, shape: DatabaseShape) {
  const db = await openDb(factory, fullName, shape.version, (created) => {
    for (const s of shape.stores) {
      const store = created.createObjectStore(s.name, {
        keyPath: s.keyPath,
        autoIncrement: s.autoIncrement,
      });
      for (const i of s.indexes) {
        store.createIndex(i.name, i.keyPath, { unique: i.unique, multiEntry: i.multiEntry });
      }
    }
  });
  try {
    const names = shape.stores.map((s) => s.name);
    if (names.length === 0) return;
    const tx = db.transaction(names, "readwrite");
    for (const s of shape.stores) {
      const store = tx.objectStore(s.name);
      for (const [key, value] of s.records) {
        if (s.keyPath === null) store.put(value, key);
        else store.put(value);
      }
    }
    await finished(tx);
  } finally {
    db.close();
  }
}

/**
 * One crypto store file, opened: {@link prefix} is the IndexedDB database prefix to hand
 * `initRustCrypto({ cryptoDatabasePrefix })` (unique per open, so a second open in the same
 * process never shares databases with the first).
 */
export class CryptoStoreFile {
  /** The IndexedDB prefix of this open's databases. */
  readonly prefix: string;
  /** The file the databases are saved to. */
  readonly path: string;
  readonly #factory: IDBFactory;
  #saving: Promise<void> = Promise.resolve();

  private constructor(factory: IDBFactory, path: string, prefix: string) {
    this.#factory = factory;
    this.path = path;
    this.prefix = prefix;
  }

  /**
   * Opens (creates) the store in directory `storePath`: loads the saved databases, if any, into
   * this process's IndexedDB under a fresh prefix.
   *
   * @throws Error when the file exists but cannot be read or parsed (never silently replaced:
   *   a new device would lose every room key).
   */
  static async open(storePath: string): Promise<CryptoStoreFile> {
    const factory = await ensureIndexedDb();
    mkdirSync(storePath, { recursive: true, mode: 0o700 });
    const path = join(storePath, CRYPTO_STORE_FILE);
    const store = new CryptoStoreFile(factory, path, `herald-${randomUUID()}`);
    let bytes: Buffer | undefined;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
    if (bytes) {
      let dump: StoreDump;
      try {
        dump = deserialize(bytes) as StoreDump;
      } catch (error) {
        throw new Error(`matrix crypto store ${path} is unreadable: restore it from a backup`, {
          cause: error,
        });
      }
      if (dump?.format !== 1 || !Array.isArray(dump.databases)) {
        throw new Error(`matrix crypto store ${path} has an unknown format`);
      }
      for (const db of dump.databases) await restoreDb(factory, store.prefix + db.name, db);
    }
    return store;
  }

  /**
   * Writes every database of this store to the file, atomically (temporary file, `fsync`,
   * rename). Calls are serialized; each writes the state at its start or later.
   */
  save(): Promise<void> {
    const next = this.#saving.then(() => this.#write());
    this.#saving = next.catch(() => {});
    return next;
  }

  async #write(): Promise<void> {
    const all = await this.#factory.databases();
    const databases: DatabaseShape[] = [];
    for (const info of all) {
      if (!info.name?.startsWith(this.prefix)) continue;
      databases.push(await dumpDb(this.#factory, info.name, info.name.slice(this.prefix.length)));
    }
    const bytes = serialize({ format: 1, databases } satisfies StoreDump);
    const tmp = `${this.path}.${process.pid}.tmp`;
    const file = await open(tmp, "w", 0o600);
    try {
      await file.writeFile(bytes);
      await file.sync();
    } finally {
      await file.close();
    }
    await rename(tmp, this.path);
  }
}

/**
 * The harness a state store passes to the conformance suite.
 *
 * @module
 */
import type { MessageStateStore } from "../../state/MessageStateStore.ts";

/** How the conformance suite gets stores to test. */
export type StateStoreHarness = {
  /** Shown in test names, e.g. `"sqlite (file)"`. */
  name: string;
  /** A fresh, empty store. The suite closes it after each test. */
  create(): Promise<MessageStateStore>;
  /**
   * Crash tests (optional; skipped for in-memory stores). `storeModule` is the URL or absolute
   * path of a module exporting `openStore(location: string): Promise<MessageStateStore>`; the
   * suite runs it in a real child process that SIGKILLs itself mid-transaction, then reopens
   * `location` here and checks that nothing partial survived.
   */
  crash?: {
    storeModule: string;
    /** A fresh, empty location (file path, database URL) for one test. */
    location(): Promise<string>;
    /** Opens a store at `location` in the test process (to check what survived). */
    open(location: string): Promise<MessageStateStore>;
  };
};

/** Gives each test a fresh store and closes it afterwards. */
export type StoreContext = { store(): MessageStateStore };

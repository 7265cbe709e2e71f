export * from "./errors.ts";
export type { MessageStateStore } from "./MessageStateStore.ts";
export type * from "./sharedLimits.ts";
export {
  SQLITE_MIGRATIONS,
  SQLITE_SCHEMA_VERSION,
  type SqliteMigration,
} from "./sqlite/migrations.ts";
export { SqliteStateStore, type SqliteStateStoreOptions } from "./sqlite/SqliteStateStore.ts";
export {
  openSqliteStateStore,
  type SqliteWorkerOptions,
  SqliteWorkerStore,
  type SqliteWorkerStoreOptions,
} from "./sqlite/worker/SqliteWorkerStore.ts";
export {
  compact,
  type IntentJsonColumns,
  type PatchClaim,
  patchClaims,
  patchColumns,
  type RegistryClaim,
  registryClaims,
  registryEntries,
  targetMessageIds,
} from "./storeHelpers.ts";
export * from "./types.ts";

/**
 * `@herald/store-postgres`: the herald state store on PostgreSQL, for several gateway processes
 * sharing one database (DESIGN §3, §11).
 *
 * @packageDocumentation
 */
export {
  POSTGRES_MIGRATIONS,
  POSTGRES_SCHEMA_VERSION,
  type PostgresMigration,
} from "./migrations.ts";
export {
  type PostgresPoolOptions,
  PostgresStateStore,
  type PostgresStateStoreOptions,
} from "./PostgresStateStore.ts";
export { DEFAULT_SCHEMA, type Tables } from "./schema.ts";

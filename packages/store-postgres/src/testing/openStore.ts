/**
 * `openStore(location)` for the crash tests of the conformance suite, which run it in a child
 * process. A location is a connection URL whose `heraldSchema` query parameter names the schema,
 * e.g. `postgres://postgres@127.0.0.1:5432/test?heraldSchema=herald_t_1`.
 *
 * @module
 */
import type { MessageStateStore } from "@herald/core";
import { PostgresStateStore } from "../PostgresStateStore.ts";

/** Splits a test location into the store's connection URL and schema. */
export function parseLocation(location: string): { connectionString: string; schema: string } {
  const url = new URL(location);
  const schema = url.searchParams.get("heraldSchema");
  if (!schema) throw new TypeError(`location ${location} has no heraldSchema parameter`);
  url.searchParams.delete("heraldSchema");
  return { connectionString: url.href, schema };
}

/** Builds a location from a connection URL and a schema. */
export function locationOf(connectionString: string, schema: string): string {
  const url = new URL(connectionString);
  url.searchParams.set("heraldSchema", schema);
  return url.href;
}

/** Opens (and migrates) the store at `location`, with a small pool. */
export async function openStore(location: string): Promise<MessageStateStore> {
  return PostgresStateStore.connect({ ...parseLocation(location), pool: { max: 4 } });
}

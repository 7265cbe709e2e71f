/**
 * What every SQL module of the store works with.
 *
 * @module
 */
import type { Db } from "../db.ts";
import type { Tables } from "../schema.ts";

/** The pool, the qualified table names of the store's schema, and its clock (epoch ms). */
export type Ctx = { readonly db: Db; readonly t: Tables; readonly clock: () => number };

/**
 * `herald demo`: the main job on the embedded default — the QA channel's web chat on
 * 127.0.0.1 and a demo bot answering with a streamed reply and simulated tool activity, state in
 * SQLite under `.herald/`.
 *
 * @module
 */
import { NotImplementedError } from "@herald/core";

/** Starts the demo. */
export async function demoCommand(_options: { port: number; dir: string }): Promise<void> {
  throw new NotImplementedError("herald demo", "waiting for the QA channel's web chat (H5)");
}

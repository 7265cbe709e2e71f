/** The full contract suite for the workspace plugins of shard 5 (see `workspaceShard.ts`). */
import { describeWorkspaceShard } from "./workspaceShard.ts";

await describeWorkspaceShard(5);

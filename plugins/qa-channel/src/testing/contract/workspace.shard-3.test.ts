/** The full contract suite for the workspace plugins of shard 3 (see `workspaceShard.ts`). */
import { describeWorkspaceShard } from "./workspaceShard.ts";

await describeWorkspaceShard(3);

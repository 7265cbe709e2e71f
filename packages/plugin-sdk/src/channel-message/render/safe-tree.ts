/**
 * `safeTree`: the tree every serializer renders — raw HTML turned into text (never passed
 * through) and links or images whose URL is not safe turned into their label (no
 * `javascript:` or `data:` links reach a platform).
 *
 * @module
 */
import type { Nodes, PhrasingContent, Root } from "mdast";
import { isSafeUrl } from "./tree.ts";

/**
 * A copy of `tree` with `html` nodes as `text` nodes and every `link` / `image` whose URL fails
 * `safeUrl` replaced by its label (links) or alt text (images). Link references are resolved
 * by the serializers and checked there.
 *
 * @defaultValue safeUrl {@link isSafeUrl}
 */
export function safeTree(
  tree: Root,
  safeUrl: (url: string) => boolean = (u) => isSafeUrl(u),
): Root {
  return map(tree, safeUrl) as Root;
}

function map(node: Nodes, safeUrl: (url: string) => boolean): Nodes {
  if (node.type === "html") return { type: "text", value: node.value };
  if (!("children" in node)) return node;
  const children: Nodes[] = [];
  for (const child of node.children as Nodes[]) {
    if (child.type === "link" && !safeUrl(child.url)) {
      const label = child.children.map((c) => map(c, safeUrl) as PhrasingContent);
      children.push(...(label.length ? label : [{ type: "text", value: child.url } as const]));
    } else if (child.type === "image" && !safeUrl(child.url)) {
      if (child.alt) children.push({ type: "text", value: child.alt });
    } else children.push(map(child, safeUrl));
  }
  return { ...node, children } as Nodes;
}

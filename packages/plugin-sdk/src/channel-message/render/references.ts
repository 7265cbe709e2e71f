/**
 * `resolveReferences`: reference links and images become inline ones, so any piece of a tree
 * renders without the definitions (which the chunker would otherwise have to copy into every
 * chunk).
 *
 * @module
 */
import type { Definition, Nodes, Root } from "mdast";

/**
 * A copy of `tree` with `linkReference` / `imageReference` replaced by `link` / `image` (the
 * definition's URL and title) and `definition` nodes removed. A reference without a definition
 * becomes its label text (links) or alt text (images).
 */
export function resolveReferences(tree: Root): Root {
  const definitions = new Map<string, Definition>();
  const collect = (node: Nodes): void => {
    if (node.type === "definition" && !definitions.has(node.identifier)) {
      definitions.set(node.identifier, node);
    }
    if ("children" in node) for (const child of node.children as Nodes[]) collect(child);
  };
  collect(tree);
  const map = (node: Nodes): Nodes[] => {
    if (node.type === "definition") return [];
    if (node.type === "linkReference") {
      const d = definitions.get(node.identifier);
      const children = node.children.flatMap(map) as never[];
      return d ? [{ type: "link", url: d.url, title: d.title ?? null, children }] : children;
    }
    if (node.type === "imageReference") {
      const d = definitions.get(node.identifier);
      if (d) return [{ type: "image", url: d.url, title: d.title ?? null, alt: node.alt ?? null }];
      return node.alt ? [{ type: "text", value: node.alt }] : [];
    }
    if (!("children" in node)) return [node];
    return [{ ...node, children: (node.children as Nodes[]).flatMap(map) } as Nodes];
  };
  return map(tree)[0] as Root;
}

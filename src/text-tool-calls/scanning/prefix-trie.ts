/**
 * The literal tokens openings begin with (`<tool_call>`, `<|python_tag|>`, `[TOOL_CALLS]`…), in one
 * trie per trigger character. One walk over the text tells which syntaxes' tokens are there, which
 * could still be with more text, and which are ruled out, so a run of `<|<|<|` is read once instead
 * of once per syntax.
 */
import { END, MORE_TEXT_NEEDED, type OpeningReader } from './opening-reader.js';

class TrieNode {
  readonly children = new Map<number, TrieNode>();
  /** Syntaxes with a token ending here or above: fully present when the walk gets this far. */
  readonly complete = new Set<number>();
  /** Syntaxes with a token ending below: still possible if the text runs out here. */
  readonly incomplete = new Set<number>();
}

/** Where a walk stopped; reused between walks, since the parser reads it at once. */
export interface PrefixGate {
  complete: ReadonlySet<number>;
  /** Set when the text ran out before the walk could finish: these syntaxes need more text. */
  waiting: ReadonlySet<number>;
}

const NOTHING: ReadonlySet<number> = new Set();

export class PrefixTrie {
  private readonly root = new TrieNode();
  private readonly gate: PrefixGate = { complete: NOTHING, waiting: NOTHING };

  add(token: string, syntax: number): void {
    let node = this.root;
    for (let index = 0; index < token.length; index += 1) {
      node.incomplete.add(syntax);
      const code = token.charCodeAt(index);
      let child = node.children.get(code);
      if (child === undefined) {
        child = new TrieNode();
        for (const inherited of node.complete) child.complete.add(inherited);
        node.children.set(code, child);
      }
      node = child;
    }
    this.markComplete(node, syntax);
  }

  /** Walks the text at the reader's start as far as the trie goes. */
  walk(reader: OpeningReader): PrefixGate {
    let node = this.root;
    for (let offset = 0; ; offset += 1) {
      const code = reader.available(offset);
      const child = code === END || code === MORE_TEXT_NEEDED ? undefined : node.children.get(code);
      if (child === undefined) {
        this.gate.complete = node.complete;
        this.gate.waiting = code === MORE_TEXT_NEEDED ? node.incomplete : NOTHING;
        return this.gate;
      }
      node = child;
    }
  }

  private markComplete(node: TrieNode, syntax: number): void {
    node.complete.add(syntax);
    for (const child of node.children.values()) this.markComplete(child, syntax);
  }
}

/**
 * A chat's messages as a tree (migration 0071): each message follows its parent, and messages
 * with the same parent are versions of one another (regenerated answers, edited questions). The
 * owner looks at one branch at a time, named by its last message (the chat's active leaf).
 */

export interface TreeMessage {
  id: number;
  parent_id: number | null;
}

/** The branch that ends at `leafId`, first message first; empty when the leaf is not among the messages. */
export function branchTo<Message extends TreeMessage>(messages: readonly Message[], leafId: number | null): Message[] {
  const byId = new Map(messages.map((message) => [message.id, message]));
  const branch: Message[] = [];
  // A parent always has a smaller id, so the walk ends; the bound guards against a corrupted row anyway.
  for (let current = leafId === null ? undefined : byId.get(leafId); current !== undefined && branch.length <= messages.length;) {
    branch.push(current);
    current = current.parent_id === null ? undefined : byId.get(current.parent_id);
  }
  return branch.reverse();
}

/** The ids of the message's versions, itself included, oldest first. */
export function versionIds(messages: readonly TreeMessage[], message: TreeMessage): number[] {
  return messages.filter((other) => other.parent_id === message.parent_id).map((other) => other.id);
}

/** The last message of the branch that goes on from `messageId` through the newest version at each step. */
export function newestLeafBelow(messages: readonly TreeMessage[], messageId: number): number {
  let leaf = messageId;
  for (;;) {
    const children = messages.filter((message) => message.parent_id === leaf);
    if (children.length === 0) return leaf;
    leaf = Math.max(...children.map((child) => child.id));
  }
}

/**
 * Running MCP tool calls, so that a client's `notifications/cancelled` (which arrives as a POST of
 * its own, to a stateless server built just for it) aborts the run it names. Keyed by the caller's
 * credential and the client's JSON-RPC id: one credential cannot cancel another's calls.
 */

export class McpCancellations {
  private readonly running = new Map<string, AbortController>();

  private static keyOf(credentialKey: string, requestId: string | number): string {
    return `${credentialKey}\u0000${typeof requestId}:${String(requestId)}`;
  }

  /** Registers a call; the returned function forgets it once it has ended. */
  register(credentialKey: string, requestId: string | number, controller: AbortController): () => void {
    const key = McpCancellations.keyOf(credentialKey, requestId);
    this.running.set(key, controller);
    return () => {
      if (this.running.get(key) === controller) this.running.delete(key);
    };
  }

  /** Aborts the caller's call with that id, if it runs in this process. */
  cancel(credentialKey: string, requestId: string | number): void {
    this.running.get(McpCancellations.keyOf(credentialKey, requestId))?.abort(new Error('cancelled by the MCP client'));
  }
}

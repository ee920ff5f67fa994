/**
 * Puts streamed tool calls back together: OpenAI-compatible servers send a call's id and name in
 * its first delta and its arguments in pieces after it, all keyed by the call's index, and several
 * calls may interleave. Calls come out in index order once the stream has ended.
 */
import { randomUUID } from 'node:crypto';
import type { ModelToolCall } from './connector-definition.js';

export interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface PartialCall {
  id: string | undefined;
  name: string;
  argumentsJson: string;
}

/** Some servers omit ids, and some reuse index 0 for every call; both are tolerated. */
export class ToolCallAssembler {
  private readonly calls = new Map<number, PartialCall>();

  add(delta: ToolCallDelta): void {
    const index = typeof delta.index === 'number' ? delta.index : this.calls.size;
    let call = this.calls.get(index);
    // A new id on an index already in use is a new call from a server that does not number them.
    if (call !== undefined && delta.id !== undefined && call.id !== undefined && delta.id !== call.id) {
      this.calls.set(this.nextFreeIndex(), call);
      call = undefined;
    }
    if (call === undefined) {
      call = { id: delta.id, name: '', argumentsJson: '' };
      this.calls.set(index, call);
    }
    if (delta.id !== undefined) call.id = delta.id;
    if (delta.function?.name) call.name += delta.function.name;
    if (delta.function?.arguments) call.argumentsJson += delta.function.arguments;
  }

  private nextFreeIndex(): number {
    let index = this.calls.size;
    while (this.calls.has(index)) index += 1;
    return index;
  }

  /** The completed calls in index order; an empty arguments text means no arguments. */
  finish(): ModelToolCall[] {
    return [...this.calls.entries()]
      .sort(([left], [right]) => left - right)
      .map(([, call]) => ({
        id: call.id ?? `call_${randomUUID()}`,
        name: call.name,
        argumentsJson: call.argumentsJson.trim() === '' ? '{}' : call.argumentsJson,
      }));
  }
}

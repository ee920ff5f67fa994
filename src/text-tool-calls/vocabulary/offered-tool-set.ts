/**
 * The offered tools as the parser consults them: whether a name (or the start of one) belongs to
 * an offered tool, and the JSON Schema of one of a tool's parameters.
 */
import type { OfferedTool } from './text-tool-call-types.js';

export class OfferedToolSet {
  private readonly byName = new Map<string, OfferedTool>();
  /** Every non-empty prefix of every name, so an opening can reject a name at its first wrong character. */
  private readonly namePrefixes = new Set<string>();

  constructor(tools: readonly OfferedTool[]) {
    for (const tool of tools) {
      this.byName.set(tool.name, tool);
      for (let length = 1; length <= tool.name.length; length += 1) this.namePrefixes.add(tool.name.slice(0, length));
    }
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  isNamePrefix(prefix: string): boolean {
    return this.namePrefixes.has(prefix);
  }

  /** The schema of `parameter` in the tool's `properties`, or undefined when the tool does not declare it. */
  parameterSchema(toolName: string, parameter: string): unknown {
    const properties = this.byName.get(toolName)?.parameters['properties'];
    if (typeof properties !== 'object' || properties === null) return undefined;
    return Object.hasOwn(properties, parameter) ? (properties as Record<string, unknown>)[parameter] : undefined;
  }
}

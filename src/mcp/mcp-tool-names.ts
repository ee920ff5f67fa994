/**
 * The names MCP clients see for assistants: `assistant_<id>_<name in ASCII>`, at most 64
 * characters (what MCP clients and model providers accept for a tool name). Only the id counts
 * when a tool is called, so a renamed assistant still answers to the name a client listed before.
 */

/** The longest tool name model providers accept (OpenAI's function names, Claude's tool names). */
export const TOOL_NAME_CHARACTERS_MAXIMUM = 64;
const TOOL_NAME_PREFIX = 'assistant_';
const TOOL_NAME_PATTERN = /^assistant_(\d{1,10})(?:_[a-z0-9_]*)?$/;
/** The largest id a PostgreSQL `integer` column holds: a larger number cannot name an assistant. */
const ASSISTANT_ID_MAXIMUM = 2_147_483_647;

/** The assistant's name in lower-case ASCII words joined by `_`: accents dropped, everything else a separator. */
function asciiWords(name: string): string {
  return (
    name
      .normalize('NFKD')
      // NFKD splits an accented letter into the letter and its accent; the accent goes.
      .replace(/[\u0300-\u036f]/g, '')
      .toLowerCase()
      .split(/[^a-z0-9]+/)
      .filter((word) => word !== '')
      .join('_')
  );
}

export function toolNameOf(assistantId: number, assistantName: string): string {
  const head = `${TOOL_NAME_PREFIX}${assistantId}`;
  const cut = asciiWords(assistantName).slice(0, TOOL_NAME_CHARACTERS_MAXIMUM - head.length - 1);
  // Words are joined by single underscores, so a cut leaves at most one at the end.
  const words = cut.endsWith('_') ? cut.slice(0, -1) : cut;
  return words === '' ? head : `${head}_${words}`;
}

/** The assistant id a tool name carries, or undefined when it is not one of ours. */
export function assistantIdOfToolName(toolName: string): number | undefined {
  if (toolName.length > TOOL_NAME_CHARACTERS_MAXIMUM) return undefined;
  const match = TOOL_NAME_PATTERN.exec(toolName);
  if (!match?.[1]) return undefined;
  const id = Number(match[1]);
  return id >= 1 && id <= ASSISTANT_ID_MAXIMUM ? id : undefined;
}

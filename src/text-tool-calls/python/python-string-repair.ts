/**
 * The repair vLLM makes to pythonic arguments small models break (LFM2 above all): a string holding
 * a raw line break (`command='cat > f.py << EOF⏎import csv⏎EOF'`) or its own quote unescaped
 * (`command='sed -n '360,450p' file.py'`). Python rejects both, so the arguments would stay the
 * model's text. The repair escapes the line break, and treats a quote as the string's end only where
 * a value can end (before `,`, `)`, `]`, `}`, `:` or the end of the text, blank space allowed) and as
 * part of the string anywhere else. It runs only on the arguments of a call already recognised, and
 * only after the strict reading failed; one pass, forward only.
 */
import { isWhitespaceCode } from '../scanning/opening-reader.js';

const VALUE_ENDS = ',)]}:';

/** Whether the quote at `index` can close a string: what follows it, blank space skipped, ends a value. */
function closesValue(text: string, index: number): boolean {
  let next = index + 1;
  while (next < text.length && isWhitespaceCode(text.charCodeAt(next))) next += 1;
  return next === text.length || VALUE_ENDS.includes(text[next]!);
}

/** The arguments with line breaks in single-line strings escaped and stray inner quotes escaped. */
export function repairPythonStrings(text: string): string {
  const pieces: string[] = [];
  let quote = '';
  let from = 0;
  for (let index = 0; index < text.length; index += 1) {
    const character = text[index]!;
    if (quote === '') {
      if (character === "'" || character === '"') {
        // A tripled quote is read by Python as it is; leave the rest alone.
        if (text.startsWith(character.repeat(3), index)) return text;
        quote = character;
      }
      continue;
    }
    if (character === '\\') {
      index += 1;
      continue;
    }
    if (character === '\n') {
      pieces.push(text.slice(from, index), '\\n');
      from = index + 1;
    } else if (character === quote) {
      if (closesValue(text, index)) quote = '';
      else {
        pieces.push(text.slice(from, index), `\\${quote}`);
        from = index + 1;
      }
    }
  }
  pieces.push(text.slice(from));
  return pieces.join('');
}

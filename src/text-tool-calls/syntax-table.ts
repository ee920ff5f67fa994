/**
 * Which opening syntaxes a setting turns on, and the lookup the parser uses at every character that
 * could start one. Order matters only where two syntaxes could both read the same text; the first
 * that decides wins, and one still undecided blocks those after it, so a decision never depends on
 * how the text was chunked.
 */
import { deepSeekSyntax } from './formats/deepseek-format.js';
import { functoolsSyntax } from './formats/functools-format.js';
import { jsonFenceSyntax, toolCodeFenceSyntax } from './formats/gemma-tool-code-format.js';
import { glmSyntax } from './formats/glm-format.js';
import { graniteSyntax, graniteToolCallTagSyntax } from './formats/granite-format.js';
import { harmonySyntax } from './formats/harmony-format.js';
import { hermesSyntax } from './formats/hermes-format.js';
import { jsonArraySyntax } from './formats/json-array-format.js';
import { kimiK2Syntax } from './formats/kimi-k2-format.js';
import { bareLlama3JsonSyntax, taggedLlama3JsonSyntax } from './formats/llama3-json-format.js';
import { mistralSyntax } from './formats/mistral-format.js';
import { openAiJsonSyntax } from './formats/openai-json-format.js';
import type { OpeningReader } from './opening-reader.js';
import type { OpeningSyntax } from './parser-block.js';
import { PrefixTrie, type PrefixGate } from './prefix-trie.js';
import { barePythonicSyntax, pythonStartSyntax, taggedPythonicSyntax } from './formats/pythonic-format.js';
import { thinkBracketSyntax, thinkTagSyntax } from './reasoning-syntaxes.js';
import {
  deepSeekToolOutputMarkerSyntax,
  strayBracketSyntax,
  strayHarmonyFillerSyntax,
  strayMistralCloseSyntax,
  strayToolCallCloseSyntax,
} from './stray-closer-repairs.js';
import type { TextToolCallFormat } from './text-tool-call-types.js';
import { toolCallsTagSyntax } from './formats/tool-calls-tag-format.js';
import { bareXmlFunctionSyntax, wrappedXmlFunctionSyntax } from './formats/xml-function-format.js';

const ALL_SYNTAXES: readonly OpeningSyntax[] = [
  thinkTagSyntax,
  thinkBracketSyntax,
  hermesSyntax,
  wrappedXmlFunctionSyntax,
  glmSyntax,
  bareXmlFunctionSyntax,
  toolCallsTagSyntax,
  taggedLlama3JsonSyntax,
  taggedPythonicSyntax,
  pythonStartSyntax,
  graniteSyntax,
  graniteToolCallTagSyntax,
  kimiK2Syntax,
  harmonySyntax,
  deepSeekSyntax,
  mistralSyntax,
  jsonArraySyntax,
  barePythonicSyntax,
  bareLlama3JsonSyntax,
  openAiJsonSyntax,
  functoolsSyntax,
  toolCodeFenceSyntax,
  jsonFenceSyntax,
  strayToolCallCloseSyntax,
  strayMistralCloseSyntax,
  strayBracketSyntax,
  strayHarmonyFillerSyntax,
  deepSeekToolOutputMarkerSyntax,
];

/**
 * A pattern matching any one of these UTF-16 code units, each written as a `\u` escape: a single
 * character class, so finding the next match reads each character once.
 */
function characterClassOf(codes: readonly number[]): RegExp {
  const escaped = codes.map((code) => `\\u${code.toString(16).padStart(4, '0')}`).join('');
  return new RegExp(`[${escaped}]`, 'g');
}

/** The syntaxes one character can start, with the trie of their literal tokens. */
export interface TriggerEntry {
  syntaxes: readonly OpeningSyntax[];
  trie: PrefixTrie;
}

export class SyntaxTable {
  /** 1 for every UTF-16 code unit some active syntax can start with. */
  private readonly isTrigger = new Uint8Array(0x10000);
  /** The same, with the triggers of repairs that apply only right after a call. */
  private readonly isTriggerAfterCall = new Uint8Array(0x10000);
  private readonly byTrigger = new Map<number, TriggerEntry>();
  /**
   * For a trigger all of whose syntaxes start with a literal token: 1 for every character that can
   * follow it in one of those tokens. Prose's `f`, `<` or backticks are then passed over after one
   * look at the next character, without reading an opening.
   */
  private readonly secondCharacters = new Map<number, Uint8Array>();
  private readonly triggerPattern: RegExp;
  private readonly triggerPatternAfterCall: RegExp;

  constructor(setting: TextToolCallFormat | 'auto') {
    const active = ALL_SYNTAXES.filter(
      (syntax) => syntax.formats === 'reasoning' || setting === 'auto' || syntax.formats.includes(setting),
    );
    for (const syntax of active) {
      for (const trigger of syntax.triggers) {
        const code = trigger.charCodeAt(0);
        const entry = this.byTrigger.get(code) ?? { syntaxes: [], trie: new PrefixTrie() };
        const index = entry.syntaxes.length;
        (entry.syntaxes as OpeningSyntax[]).push(syntax);
        for (const prefix of syntax.prefixes ?? []) entry.trie.add(prefix, index);
        this.byTrigger.set(code, entry);
        this.isTriggerAfterCall[code] = 1;
        if (syntax.onlyAfterCall !== true) this.isTrigger[code] = 1;
      }
    }
    const characterClass = (table: Uint8Array) => characterClassOf([...this.byTrigger.keys()].filter((code) => table[code] === 1));
    this.triggerPattern = characterClass(this.isTrigger);
    this.triggerPatternAfterCall = characterClass(this.isTriggerAfterCall);
    for (const [code, entry] of this.byTrigger) {
      if (entry.syntaxes.some((syntax) => syntax.prefixes === undefined)) continue;
      const allowed = new Uint8Array(0x10000);
      for (const syntax of entry.syntaxes) {
        for (const prefix of syntax.prefixes ?? [])
          if (prefix.charCodeAt(0) === code && prefix.length > 1) allowed[prefix.charCodeAt(1)] = 1;
      }
      this.secondCharacters.set(code, allowed);
    }
  }

  /**
   * Whether no opening can start at `index`: every syntax of this trigger needs a literal token, and
   * the next character (when there is one yet) fits none of them.
   */
  ruledOutByNextCharacter(text: string, index: number): boolean {
    if (index + 1 >= text.length) return false;
    const allowed = this.secondCharacters.get(text.charCodeAt(index));
    return allowed !== undefined && allowed[text.charCodeAt(index + 1)] !== 1;
  }

  /**
   * The index of the next character at or after `from` that could start an opening; -1 when none.
   * A character-class search (the engine scans for it far faster than a loop over the codes).
   */
  nextTrigger(text: string, from: number, afterCall: boolean): number {
    const pattern = afterCall ? this.triggerPatternAfterCall : this.triggerPattern;
    pattern.lastIndex = from;
    return pattern.exec(text)?.index ?? -1;
  }

  syntaxesFor(code: number): readonly OpeningSyntax[] {
    return this.byTrigger.get(code)?.syntaxes ?? [];
  }

  /** Walks the literal tokens of the syntaxes this character starts. */
  gate(code: number, reader: OpeningReader): PrefixGate | undefined {
    return this.byTrigger.get(code)?.trie.walk(reader);
  }
}

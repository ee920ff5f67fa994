/**
 * Which opening syntaxes a setting turns on, and the lookup the parser uses at every character that
 * could start one. Order matters only where two syntaxes could both read the same text; the first
 * that decides wins, and one still undecided blocks those after it, so a decision never depends on
 * how the text was chunked.
 */
import { apertusReasoningSyntax, apertusSuffixSyntax, apertusSyntax, apertusTurnSyntax } from './formats/apertus-format.js';
import { deepSeekSyntax } from './formats/deepseek-format.js';
import { functionGemmaSyntax } from './formats/function-gemma-format.js';
import { functionaryV31Syntax } from './formats/functionary-v31-format.js';
import { functionaryV32SegmentStartSyntax, functionaryV32StartSyntax, functionaryV32Syntax } from './formats/functionary-v32-format.js';
import {
  cohereActionSyntax,
  cohereEndOfTurnSyntax,
  cohereFencedActionSyntax,
  cohereResponseSyntax,
  cohereThinkingSyntax,
} from './formats/cohere-command-format.js';
import { deepSeekV32Syntax } from './formats/deepseek-v32-format.js';
import { bareGemma4Syntax, gemma4Syntax, gemma4ThoughtSyntax, strayChannelCloseSyntax } from './formats/gemma4-format.js';
import { gigaChat3EndSyntax, gigaChat3Syntax } from './formats/gigachat3-format.js';
import { lfm2EndSyntax, lfm2Syntax } from './formats/lfm2-format.js';
import { olmo3Syntax } from './formats/olmo3-format.js';
import { seedOssSyntax, seedThinkSyntax } from './formats/seed-oss-format.js';
import { functoolsSyntax } from './formats/functools-format.js';
import { jsonFenceSyntax, toolCodeFenceSyntax } from './formats/gemma-tool-code-format.js';
import { glmSyntax } from './formats/glm-format.js';
import { granite20bFcSyntax } from './formats/granite-20b-fc-format.js';
import { graniteSyntax, graniteToolCallTagSyntax } from './formats/granite-format.js';
import { harmonyRecipientFirstSyntax, harmonySyntax } from './formats/harmony-format.js';
import { harmonyPlainCallSyntax, harmonyPlainChannelSyntax } from './formats/harmony-plain-format.js';
import { hermesSyntax } from './formats/hermes-format.js';
import { hunyuanAnswerCloseSyntax, hunyuanAnswerSyntax } from './formats/hunyuan-format.js';
import { internlm2Syntax } from './formats/internlm2-format.js';
import { jsonArraySyntax } from './formats/json-array-format.js';
import { kimiK2Syntax } from './formats/kimi-k2-format.js';
import { bareLlama3JsonSyntax, taggedLlama3JsonSyntax } from './formats/llama3-json-format.js';
import { longcatSyntax } from './formats/longcat-format.js';
import { minimaxM2Syntax } from './formats/minimax-m2-format.js';
import { mistralSyntax } from './formats/mistral-format.js';
import { nemotronV2Syntax } from './formats/nemotron-v2-format.js';
import { openAiJsonSyntax } from './formats/openai-json-format.js';
import type { OpeningReader } from './scanning/opening-reader.js';
import type { OpeningSyntax } from './blocks/parser-block.js';
import { PrefixTrie, type PrefixGate } from './scanning/prefix-trie.js';
import { barePythonicSyntax, pythonStartSyntax, taggedPythonicSyntax } from './formats/pythonic-format.js';
import { thinkBracketSyntax, thinkTagSyntax } from './reasoning/reasoning-syntaxes.js';
import { step3Syntax } from './formats/step3-format.js';
import {
  deepSeekToolOutputMarkerSyntax,
  strayBracketSyntax,
  strayHarmonyFillerSyntax,
  strayMistralCloseSyntax,
  strayToolCallCloseSyntax,
} from './blocks/stray-closer-repairs.js';
import type { TextToolCallFormat } from './vocabulary/text-tool-call-types.js';
import { toolCallsTagSyntax } from './formats/tool-calls-tag-format.js';
import { minimaxM1Syntax } from './formats/minimax-m1-format.js';
import { bareXmlFunctionSyntax, wrappedXmlFunctionSyntax } from './formats/xml-function-format.js';

const ALL_SYNTAXES: readonly OpeningSyntax[] = [
  thinkTagSyntax,
  thinkBracketSyntax,
  hermesSyntax,
  wrappedXmlFunctionSyntax,
  glmSyntax,
  // Before xml_function's: the same `<function=name>` opening, told apart by the JSON body that follows.
  functionaryV31Syntax,
  bareXmlFunctionSyntax,
  // Before tool_calls_tag's: the same opening, taken only when an object (not a list) follows it.
  minimaxM1Syntax,
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
  // Group A of issue 18: each opens with its family's own tokens, so the order among them is free.
  seedThinkSyntax,
  gemma4ThoughtSyntax,
  cohereThinkingSyntax,
  cohereResponseSyntax,
  cohereActionSyntax,
  cohereFencedActionSyntax,
  cohereEndOfTurnSyntax,
  lfm2Syntax,
  lfm2EndSyntax,
  gemma4Syntax,
  bareGemma4Syntax,
  strayChannelCloseSyntax,
  olmo3Syntax,
  deepSeekV32Syntax,
  gigaChat3Syntax,
  gigaChat3EndSyntax,
  seedOssSyntax,
  strayToolCallCloseSyntax,
  strayMistralCloseSyntax,
  strayBracketSyntax,
  strayHarmonyFillerSyntax,
  deepSeekToolOutputMarkerSyntax,
  apertusReasoningSyntax,
  apertusSyntax,
  apertusSuffixSyntax,
  apertusTurnSyntax,
  internlm2Syntax,
  granite20bFcSyntax,
  longcatSyntax,
  functionGemmaSyntax,
  minimaxM2Syntax,
  step3Syntax,
  hunyuanAnswerSyntax,
  hunyuanAnswerCloseSyntax,
  functionaryV32SegmentStartSyntax,
  functionaryV32Syntax,
  functionaryV32StartSyntax,
  nemotronV2Syntax,
  harmonyPlainChannelSyntax,
  harmonyPlainCallSyntax,
  harmonyRecipientFirstSyntax,
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

/** The segment state the scan is in: which triggers can matter there. */
export interface ScanState {
  afterCall: boolean;
  atSegmentStart: boolean;
}

export class SyntaxTable {
  /** 1 for every UTF-16 code unit some active syntax can start with. */
  private readonly isTrigger = new Uint8Array(0x10000);
  /** The same, with the triggers of openings that only start a segment. */
  private readonly isTriggerAtSegmentStart = new Uint8Array(0x10000);
  /** The same, with the triggers of repairs that apply only right after a call (which starts a segment too). */
  private readonly isTriggerAfterCall = new Uint8Array(0x10000);
  private readonly byTrigger = new Map<number, TriggerEntry>();
  /**
   * For a trigger all of whose syntaxes start with a literal token: the characters that can follow it
   * in one of those tokens, and the pairs of the next two as `second * 0x10000 + third` (undefined
   * when a token has only two characters).
   */
  private readonly followers = new Map<number, { second: Uint8Array; pairs: Set<number> | undefined }>();
  /** One character class per table, so the scan finds the next candidate in one native search. */
  private readonly triggerPattern: RegExp;
  private readonly triggerPatternAtSegmentStart: RegExp;
  private readonly triggerPatternAfterCall: RegExp;

  constructor(setting: TextToolCallFormat | 'auto') {
    const active = ALL_SYNTAXES.filter(
      (syntax) => syntax.formats === 'reasoning' || (setting === 'auto' ? syntax.namedOnly !== true : syntax.formats.includes(setting)),
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
        if (syntax.onlyAfterCall !== true) this.isTriggerAtSegmentStart[code] = 1;
        if (syntax.onlyAfterCall !== true && syntax.onlyAtSegmentStart !== true) this.isTrigger[code] = 1;
      }
    }
    for (const [code, entry] of this.byTrigger) this.listFollowers(code, entry.syntaxes);
    const characterClass = (table: Uint8Array) => characterClassOf([...this.byTrigger.keys()].filter((code) => table[code] === 1));
    this.triggerPattern = characterClass(this.isTrigger);
    this.triggerPatternAtSegmentStart = characterClass(this.isTriggerAtSegmentStart);
    this.triggerPatternAfterCall = characterClass(this.isTriggerAfterCall);
  }

  /**
   * The index of the next character at or after `from` that could start an opening; -1 when none.
   * A character-class search finds each candidate (the engine scans for it far faster than a loop
   * over the codes); a candidate whose next characters no token continues with is passed over, so
   * the common letters and brackets some syntax starts with (`a` of stripped Harmony's
   * `assistantcommentary`, `<` of an HTML tag) cost one lookup, not an attempt at an opening.
   */
  nextTrigger(text: string, from: number, state: ScanState): number {
    const pattern = state.afterCall
      ? this.triggerPatternAfterCall
      : state.atSegmentStart
        ? this.triggerPatternAtSegmentStart
        : this.triggerPattern;
    pattern.lastIndex = from;
    for (;;) {
      const index = pattern.exec(text)?.index ?? -1;
      if (index === -1 || !this.ruledOutByNextCharacter(text, index)) return index;
      pattern.lastIndex = index + 1;
    }
  }

  /**
   * Whether no opening can start at `index`: every syntax of this trigger needs a literal token, and
   * the next characters (when there are any yet) fit none of them.
   */
  ruledOutByNextCharacter(text: string, index: number): boolean {
    const followers = this.followers.get(text.charCodeAt(index));
    if (followers === undefined || index + 1 === text.length) return false;
    if (followers.second[text.charCodeAt(index + 1)] !== 1) return true;
    if (followers.pairs === undefined || index + 2 === text.length) return false;
    return !followers.pairs.has(text.charCodeAt(index + 1) * 0x10000 + text.charCodeAt(index + 2));
  }

  /** Lists a trigger's followers when every syntax it starts has tokens longer than one character. */
  private listFollowers(code: number, syntaxes: readonly OpeningSyntax[]): void {
    const second = new Uint8Array(0x10000);
    let pairs: Set<number> | undefined = new Set<number>();
    for (const syntax of syntaxes) {
      const tokens = (syntax.prefixes ?? []).filter((token) => token.charCodeAt(0) === code);
      if (tokens.length === 0 || tokens.some((token) => token.length < 2)) return;
      for (const token of tokens) {
        second[token.charCodeAt(1)] = 1;
        if (token.length < 3) pairs = undefined;
        else pairs?.add(token.charCodeAt(1) * 0x10000 + token.charCodeAt(2));
      }
    }
    this.followers.set(code, { second, pairs });
  }

  syntaxesFor(code: number): readonly OpeningSyntax[] {
    return this.byTrigger.get(code)?.syntaxes ?? [];
  }

  /** Walks the literal tokens of the syntaxes this character starts. */
  gate(code: number, reader: OpeningReader): PrefixGate | undefined {
    return this.byTrigger.get(code)?.trie.walk(reader);
  }
}

/**
 * The streaming parser that turns a local model's text into tool calls. It takes the model's text
 * deltas as they arrive and emits text, reasoning and tool-call events:
 *
 *  - Text streams at once; only a possible opening (a suffix that could still become a recognised
 *    call, at most OPENING_CHARACTERS_MAXIMUM long) is held back, and released as text once it proves
 *    not to be one.
 *  - A recognised call is held until it ends (at most CALL_CHARACTERS_MAXIMUM; beyond, it is released
 *    as text), then emitted as calls, or as its exact text when it names a tool that was not offered.
 *  - Reasoning (`<think>`, `[THINK]`, Harmony's analysis channel) streams as reasoning events.
 *
 * Every decision depends only on the characters, never on where the deltas split them, so parsing a
 * text whole or in any chunking gives the same text, reasoning and calls. Each character is scanned
 * once by the text scan and at most a bounded number of times by openings; blocks read forward only.
 */
import { EventCollector, NO_TEXT } from './event-collector.js';
import { OfferedToolSet } from './vocabulary/offered-tool-set.js';
import { NEED_MORE_TEXT, OpeningReader } from './scanning/opening-reader.js';
import type { Opening, OpeningContext, ParserBlock } from './blocks/parser-block.js';
import { CALL_CHARACTERS_MAXIMUM, OPENING_CHARACTERS_MAXIMUM } from './vocabulary/parser-limits.js';
import {
  decidedEarly,
  findTemplateOpenedEnd,
  OPENED_REASONING_HEAD_CHARACTERS,
  openedByTheModel,
  TemplateOpenedReasoningBlock,
} from './reasoning/reasoning-opened.js';
import { SyntaxTable } from './syntax-table.js';
import type { TextParserEvent, TextToolCallFormat, TextToolCallParserOptions } from './vocabulary/text-tool-call-types.js';
import { WorkCounter } from './scanning/work-counter.js';

export interface TextParserStatistics {
  /** Characters examined so far, every pass counted: the measure of the parser's work. */
  charactersExamined: number;
  /** Characters received but not yet emitted. */
  heldCharacters: number;
  /** Whether the held characters belong to a recognised call (then bounded by CALL_CHARACTERS_MAXIMUM). */
  insideCall: boolean;
}

const BACKTICK = 0x60;

export class TextToolCallParser {
  private readonly table: SyntaxTable;
  private readonly counter = new WorkCounter();
  private readonly reader = new OpeningReader();
  private readonly context: OpeningContext;
  private block: ParserBlock | undefined;
  /** A possible opening held back at the end of the text so far. */
  private pending = '';
  /**
   * The first syntax still undecided on the held fragment: those before it have already answered
   * no, and more text never turns a no into a yes, so they are not asked again.
   */
  private pendingSyntax = 0;
  private ended = false;
  /**
   * `reasoningOpened: auto`: the first characters, held (never more than the opening bound and the
   * longest end marker) until they show whether the template opened reasoning. Undefined once decided.
   */
  private openedReasoningHead: string | undefined;
  /**
   * The events of the `push` or `end` under way (each answers its list and starts a new one). Kept
   * here rather than passed along, so the methods on the per-character path take no more than four
   * parameters and allocate nothing per call.
   */
  private readonly events: EventCollector;

  constructor(options: TextToolCallParserOptions) {
    const setting: string = options.format;
    if (setting === 'native') throw new Error('TextToolCallParser parses text; the native setting needs no parser');
    this.table = new SyntaxTable(options.format);
    const format = options.format;
    this.context = {
      tools: new OfferedToolSet(options.tools),
      counter: this.counter,
      atSegmentStart: true,
      afterCall: false,
      lastTextCode: NO_TEXT,
      accepts: (candidate: TextToolCallFormat) => format === 'auto' || format === candidate,
    };
    this.events = new EventCollector(this.context);
    // Absent, the parser reads the output as an answer from its first character (the behaviour before the setting).
    const reasoningOpened = options.reasoningOpened ?? 'never';
    if (reasoningOpened === 'always') this.block = new TemplateOpenedReasoningBlock(this.counter);
    if (reasoningOpened === 'auto') this.openedReasoningHead = '';
  }

  push(delta: string): TextParserEvent[] {
    if (this.ended) throw new Error('TextToolCallParser: push after end');
    if (this.openedReasoningHead !== undefined) this.decideOpenedReasoning(delta, false);
    else this.process(delta, 0, false);
    return this.events.list();
  }

  /** Flushes: a held fragment that never became a call is emitted as text, an open block is ended. */
  end(): TextParserEvent[] {
    if (this.ended) return [];
    this.ended = true;
    if (this.openedReasoningHead !== undefined) this.decideOpenedReasoning('', true);
    else this.process('', 0, true);
    return this.events.list();
  }

  get statistics(): TextParserStatistics {
    return {
      charactersExamined: this.counter.characters,
      heldCharacters: this.pending.length + (this.block?.heldCharacters ?? 0) + (this.openedReasoningHead?.length ?? 0),
      insideCall: this.block?.holdsText ?? false,
    };
  }

  /**
   * `reasoningOpened: auto`: gathers the output's first characters until they decide whether the
   * template opened reasoning, then emits that reasoning (never read for calls) and parses the rest.
   * The decision looks only at the characters, so any chunking decides alike.
   */
  private decideOpenedReasoning(delta: string, atEnd: boolean): void {
    const head = this.openedReasoningHead!;
    const taken = Math.min(delta.length, OPENED_REASONING_HEAD_CHARACTERS - head.length);
    const joined = head + delta.slice(0, taken);
    this.counter.add(taken);
    const complete = atEnd || joined.length >= OPENED_REASONING_HEAD_CHARACTERS;
    const decision = findTemplateOpenedEnd(joined, atEnd && taken === delta.length);
    const decided = decision === undefined ? openedByTheModel(joined) : decidedEarly(joined, decision);
    if (!complete && !decided) {
      this.openedReasoningHead = joined;
      return;
    }
    this.openedReasoningHead = undefined;
    if (decision !== undefined) this.events.add([{ type: 'reasoning', text: joined.slice(0, decision.markerAt) }]);
    // The head's rest first, then what follows it in `delta`, which is read in place, never copied.
    const headRest = decision === undefined ? joined : joined.slice(decision.resumeAt);
    this.process(headRest, 0, atEnd && taken === delta.length);
    if (taken < delta.length) this.process(delta, taken, atEnd);
  }

  /** Processes `text` from `start`; `atEnd` when nothing follows it. `firstSyntax` applies to an opening at `start`. */
  private process(text: string, start: number, atEnd: boolean, firstSyntax = 0): void {
    let position = start;
    let skipped = firstSyntax;
    for (;;) {
      const hasText = position < text.length;
      if (this.pending !== '') {
        if (!hasText && !atEnd) return;
        position = this.reconsiderPending(text, position, atEnd);
      } else if (this.block !== undefined) {
        if (!hasText && !atEnd) return;
        const next = this.feedBlock(this.block, text, position, atEnd);
        if (next === undefined) return;
        position = next;
      } else {
        if (!hasText) return;
        position = this.scanText(text, position, atEnd, skipped);
      }
      skipped = 0;
    }
  }

  /**
   * Reads the held fragment again with the next characters. They are joined in a short string
   * (at most one opening's length of new text), so a long input is never copied to be re-read.
   */
  private reconsiderPending(text: string, position: number, atEnd: boolean): number {
    const headEnd = Math.min(text.length, position + OPENING_CHARACTERS_MAXIMUM);
    const joined = this.pending + text.slice(position, headEnd);
    this.pending = '';
    this.process(joined, 0, atEnd && headEnd === text.length, this.pendingSyntax);
    return headEnd;
  }

  /** Feeds the open block; answers where the text after it resumes, or undefined when it consumed everything. */
  private feedBlock(block: ParserBlock, text: string, position: number, atEnd: boolean): number | undefined {
    const capacity = block.holdsText ? CALL_CHARACTERS_MAXIMUM - block.heldCharacters : text.length;
    const to = Math.min(text.length, position + capacity);
    const step = block.consume(text, position, to, atEnd && to === text.length);
    this.events.add(step.events);
    if (step.end !== undefined) {
      this.block = undefined;
      if (step.end.heldRest !== '') this.process(step.end.heldRest, 0, false);
      return step.end.resumeAt;
    }
    if (to === text.length) return undefined;
    // Still open at the size limit: the call is given up and its text released as written.
    this.events.text(block.release());
    this.block = undefined;
    return to;
  }

  /**
   * Emits text up to the next character that could start an opening and tries the openings there.
   * Answers where scanning stopped: the end of the text, or where an opened block's input begins.
   */
  private scanText(text: string, start: number, atEnd: boolean, firstSyntax: number): number {
    let emitFrom = start;
    let searchFrom = start;
    for (;;) {
      const trigger = this.table.nextTrigger(text, searchFrom, this.context);
      this.counter.add((trigger === -1 ? text.length : trigger + 1) - searchFrom);
      if (trigger === -1) {
        this.events.text(text.slice(emitFrom));
        return text.length;
      }
      if (this.table.ruledOutByNextCharacter(text, trigger)) {
        this.counter.add(1);
        searchFrom = trigger + 1;
        continue;
      }
      // Only a reasoning opening asks whether text came before it; while that can still matter, emit first.
      if (this.context.atSegmentStart) {
        this.events.text(text.slice(emitFrom, trigger));
        emitFrom = trigger;
      }
      const opening = this.tryOpenings(text, trigger, { start, atEnd }, trigger === start ? firstSyntax : 0);
      if (typeof opening === 'number') {
        this.events.text(text.slice(emitFrom, trigger));
        this.pending = text.slice(trigger);
        this.pendingSyntax = opening;
        return text.length;
      }
      if (opening === undefined) {
        searchFrom = trigger + 1;
        continue;
      }
      this.events.text(text.slice(emitFrom, trigger));
      this.block = opening.block;
      return trigger + opening.length;
    }
  }

  /**
   * The first opening that the syntaxes starting with this character recognise at `at`, from the
   * syntax `firstSyntax` on; or, when one cannot decide yet, that syntax's index.
   */
  private tryOpenings(
    text: string,
    at: number,
    scan: { start: number; atEnd: boolean },
    firstSyntax: number,
  ): Opening | number | undefined {
    const { start, atEnd } = scan;
    const windowEnd = Math.min(text.length, at + OPENING_CHARACTERS_MAXIMUM);
    // Past the window an opening cannot grow, so reading reaches a definite end there too.
    const final = atEnd || windowEnd === at + OPENING_CHARACTERS_MAXIMUM;
    const reader = this.reader.load(text, at, windowEnd, final);
    const code = text.charCodeAt(at);
    // Inline code (`[get_time()]`, `<tool_call>…`) is quoted, not called: no call opens right after a backtick.
    const quoted = (at > start ? text.charCodeAt(at - 1) : this.context.lastTextCode) === BACKTICK;
    const syntaxes = this.table.syntaxesFor(code);
    const gate = this.table.gate(code, reader);
    this.counter.add(reader.furthest - at + 1);
    for (let index = firstSyntax; index < syntaxes.length; index += 1) {
      const syntax = syntaxes[index]!;
      if (quoted && syntax.formats !== 'reasoning') continue;
      // A syntax whose token is not there is ruled out without being asked; one whose token may still come waits.
      if (syntax.prefixes !== undefined && !gate?.complete.has(index)) {
        if (gate?.waiting.has(index)) return index;
        continue;
      }
      try {
        const opening = syntax.open(reader.rewind(), this.context);
        if (opening !== undefined) return opening;
      } catch (signal) {
        if (signal === NEED_MORE_TEXT) return index;
        throw signal;
      } finally {
        this.counter.add(reader.furthest - at + 1);
      }
    }
    return undefined;
  }
}

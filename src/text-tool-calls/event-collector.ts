/**
 * Gathers the events of one `push` or `end`, joining neighbouring text (and neighbouring reasoning)
 * into one event, and keeps the parser's notion of a segment start: only blank text since the start,
 * the last call or the last reasoning block (and whether that was a call, for the repairs that only
 * apply right after one).
 */
import type { TextParserEvent } from './vocabulary/text-tool-call-types.js';

/** `lastTextCode` when no text came since the start, the last call or the last reasoning. */
export const NO_TEXT = -1;

export class EventCollector {
  private events: TextParserEvent[] = [];
  private pendingType: 'text' | 'reasoning' | undefined;
  /** Neighbouring pieces joined as they come: a push rarely yields more than a few. */
  private pendingText = '';

  constructor(private readonly segment: { atSegmentStart: boolean; afterCall: boolean; lastTextCode: number }) {}

  text(text: string): void {
    if (text.length === 0) return;
    this.segment.lastTextCode = text.charCodeAt(text.length - 1);
    if (this.segment.atSegmentStart && text.trim() !== '') {
      this.segment.atSegmentStart = false;
      this.segment.afterCall = false;
    }
    this.append('text', text);
  }

  add(events: readonly TextParserEvent[]): void {
    for (const event of events) {
      if (event.type === 'text') this.text(event.text);
      else if (event.type === 'reasoning') {
        this.segment.lastTextCode = NO_TEXT;
        this.segment.atSegmentStart = true;
        this.segment.afterCall = false;
        this.append('reasoning', event.text);
      } else {
        this.segment.lastTextCode = NO_TEXT;
        this.segment.atSegmentStart = true;
        this.segment.afterCall = true;
        this.flush();
        this.events.push(event);
      }
    }
  }

  /** The events gathered since the last call, which starts a new list (the collector is reused from push to push). */
  list(): TextParserEvent[] {
    this.flush();
    const events = this.events;
    this.events = [];
    return events;
  }

  private append(type: 'text' | 'reasoning', text: string): void {
    if (text.length === 0) return;
    if (this.pendingType !== type) this.flush();
    this.pendingType = type;
    this.pendingText += text;
  }

  private flush(): void {
    if (this.pendingType !== undefined && this.pendingText.length > 0) {
      this.events.push({ type: this.pendingType, text: this.pendingText });
    }
    this.pendingType = undefined;
    this.pendingText = '';
  }
}

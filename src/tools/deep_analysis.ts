/**
 * deep_analysis — a function the model calls for questions that need more than the top passages
 * (seed 004's deep analysis tool): it gathers many passages from the configured knowledge bases,
 * has the organization's small fast model summarise them in batches, then has the assistant's
 * own model answer from the summaries, citing the passages by number. A bounded map-reduce:
 * passages, batches, tokens and time each have a bound (DEEP_ANALYSIS_* settings, lowered per
 * tool in its config), and a run that reaches one stops cleanly, answers from what it has, and
 * says which bound stopped it, in its result and in a status step. Without a small fast model,
 * the assistant's model summarises too (docs/deep-analysis.md).
 */
import {
  collectionsSchema,
  defineTool,
  estimateTokens,
  messageText,
  searchCollections,
  sourceOfHit,
  startDeadline,
  thresholdSchema,
  type ChatMessage,
  type DeepAnalysisBounds,
  type KnowledgeHit,
  type SchemaValue,
  type Source,
  type TextModel,
  type ToolContext,
  type ToolOutput,
} from '../pipeline/plugin-api.js';

const QUESTION_CHARACTERS_MAXIMUM = 2_000;
/** The share of the time bound the summaries may take: the rest is kept for the answer. */
const SUMMARY_SHARE_OF_TIME = 2 / 3;
const NOTHING_RELEVANT = 'NOTHING RELEVANT';

const SUMMARY_INSTRUCTIONS =
  'You summarise numbered passages of course material for a question. Write what the passages say that bears on the question, ' +
  'as short points, each ending with the numbers of the passages it comes from in brackets, like [3] or [3, 5]. ' +
  `Use only the passages. If none of them bears on the question, answer ${NOTHING_RELEVANT}.`;
const ANSWER_INSTRUCTIONS =
  'Answer the question from these summaries of numbered course passages. After each statement, cite the passages that support it ' +
  'with their numbers in brackets, like [3]. Use only the summaries, and say what they do not cover.';

const configSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['collections'],
  properties: {
    collections: collectionsSchema,
    passages: { type: 'integer', minimum: 1, maximum: 10_000, description: 'Passages to gather; at most DEEP_ANALYSIS_PASSAGES_MAX' },
    batch_size: { type: 'integer', minimum: 1, maximum: 1_000, description: 'Passages per summary; at most DEEP_ANALYSIS_BATCH_PASSAGES' },
    max_batches: { type: 'integer', minimum: 1, maximum: 1_000, description: 'At most DEEP_ANALYSIS_BATCHES_MAX' },
    max_tokens: { type: 'integer', minimum: 100, maximum: 10_000_000, description: 'At most DEEP_ANALYSIS_TOKENS_MAX' },
    time_ms: { type: 'integer', minimum: 1, maximum: 600_000, description: 'At most DEEP_ANALYSIS_TIME_MS' },
    threshold: thresholdSchema,
  },
} as const;

type Config = SchemaValue<typeof configSchema>;

/** The bounds a run can stop at, in the words its result and status use. */
type Bound = 'passages' | 'batches' | 'tokens' | 'time';
const BOUND_WORDS: Readonly<Record<Bound, string>> = {
  passages: 'the passage bound (more passages matched than one analysis gathers)',
  batches: 'the batch bound (the passages past the last batch were not summarised)',
  tokens: 'the token bound (no further model call could fit under it)',
  time: 'the time bound',
};

/** A setting, lowered by the tool's config when it names a smaller number. */
function lowered(setting: number, configured: number | undefined): number {
  return configured === undefined ? setting : Math.min(setting, configured);
}

function boundsOf(server: DeepAnalysisBounds, config: Config): DeepAnalysisBounds {
  return {
    ...server,
    passages: Math.min(config.passages ?? server.passages, server.passagesMaximum),
    batchPassages: lowered(server.batchPassages, config.batch_size),
    batchesMaximum: lowered(server.batchesMaximum, config.max_batches),
    tokensMaximum: lowered(server.tokensMaximum, config.max_tokens),
    milliseconds: lowered(server.milliseconds, config.time_ms),
  };
}

/** `[4] (notes.md, Light reactions, page 3) text`: a passage as the models see it. */
function passageLine(hit: KnowledgeHit, number: number): string {
  const source = sourceOfHit(hit);
  const where = [source.title, source.section, source.page === undefined ? undefined : `page ${source.page}`].filter(Boolean).join(', ');
  return `[${number}] (${where}) ${hit.text}`;
}

function promptTokens(messages: readonly ChatMessage[]): number {
  return estimateTokens(messages.map((message) => messageText(message.content)).join('\n'));
}

/** One analysis: what it gathered, what it has spent, which bounds it reached. */
class AnalysisRun {
  readonly reached = new Set<Bound>();
  calls = 0;
  summarisedBatches = 0;
  /** Tokens of finished calls as reported, plus the most each running call may use. */
  private committed = 0;
  private readonly statusBase: string;
  private readonly startedAt = performance.now();

  constructor(
    readonly question: string,
    readonly bounds: DeepAnalysisBounds,
    private readonly context: ToolContext,
  ) {
    this.statusBase = context.callStatus?.id ?? 'deep_analysis';
  }

  /** Milliseconds left of the time bound, from `share` of it. */
  millisecondsLeft(share = 1): number {
    return this.bounds.milliseconds * share - (performance.now() - this.startedAt);
  }

  get tokens(): number {
    return this.committed;
  }

  status(stage: string, state: 'running' | 'done' | 'error', message: string): void {
    this.context.callStatus?.emit({
      id: `${this.statusBase}/${stage}`,
      tool: 'deep_analysis',
      state,
      message,
      parent: this.statusBase,
    });
  }

  /** Reserves a call's most tokens, or says the token bound is reached (and reserves nothing). */
  reserve(tokens: number, keptForLater: number): boolean {
    if (this.committed + tokens + keptForLater > this.bounds.tokensMaximum) {
      this.reached.add('tokens');
      return false;
    }
    this.committed += tokens;
    return true;
  }

  /** Replaces a call's reservation with what it used (its reservation when it reported nothing). */
  settle(reserved: number, used: number | undefined): void {
    this.calls += 1;
    this.committed += (used ?? reserved) - reserved;
  }

  messages(instructions: string, body: string): ChatMessage[] {
    return [
      { role: 'system', content: instructions },
      { role: 'user', content: `Question: ${this.question}\n\n${body}` },
    ];
  }
}

/** The answer's reservation once `summaries` summaries exist: its prompt at most, and its answer. */
function answerReservation(run: AnalysisRun, summaries: number): number {
  return promptTokens(run.messages(ANSWER_INSTRUCTIONS, '')) + summaries * run.bounds.summaryTokensMaximum + run.bounds.answerTokensMaximum;
}

interface Batch {
  index: number;
  /** The passages' numbers in the analysis, from 1. */
  numbers: number[];
  lines: string;
}

function batchesOf(hits: readonly KnowledgeHit[], size: number): Batch[] {
  const batches: Batch[] = [];
  for (let start = 0; start < hits.length; start += size) {
    const numbers = hits.slice(start, start + size).map((_, offset) => start + offset + 1);
    batches.push({ index: batches.length, numbers, lines: numbers.map((number) => passageLine(hits[number - 1]!, number)).join('\n\n') });
  }
  return batches;
}

/** Summarises the batches, a few at once, until they are done or a bound is reached; the summaries in batch order. */
async function summarise(run: AnalysisRun, model: TextModel, batches: readonly Batch[], signal: AbortSignal): Promise<string[]> {
  const deadline = startDeadline(run.millisecondsLeft(SUMMARY_SHARE_OF_TIME), signal);
  // A function, so that the compiler does not keep what it read before an await.
  const timeIsUp = (): boolean => deadline.expired;
  const summaries: Array<string | undefined> = [];
  let next = 0;
  let started = 0;
  const worker = async (): Promise<void> => {
    while (next < batches.length && !run.reached.has('tokens') && !run.reached.has('time')) {
      if (timeIsUp()) {
        run.reached.add('time');
        return;
      }
      const batch = batches[next]!;
      const messages = run.messages(SUMMARY_INSTRUCTIONS, `Passages:\n${batch.lines}`);
      const reservation = promptTokens(messages) + run.bounds.summaryTokensMaximum;
      if (!run.reserve(reservation, answerReservation(run, started + 1))) return;
      next += 1;
      started += 1;
      try {
        const answer = await model.complete({ messages, maxTokens: run.bounds.summaryTokensMaximum, signal: deadline.signal });
        run.settle(reservation, answer.usage.total_tokens);
        summaries[batch.index] = answer.text.trim();
        run.summarisedBatches += 1;
      } catch (error) {
        run.settle(reservation, undefined);
        if (signal.aborted) throw error;
        if (timeIsUp()) run.reached.add('time');
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(run.bounds.parallelBatches, batches.length) }, worker));
  } finally {
    deadline.clear();
  }
  return summaries.filter((summary): summary is string => summary !== undefined && summary !== '' && !summary.includes(NOTHING_RELEVANT));
}

/** The assistant's answer from the summaries; undefined when a bound or a failure leaves none. */
async function answer(run: AnalysisRun, model: TextModel, summaries: readonly string[], signal: AbortSignal): Promise<string | undefined> {
  const messages = run.messages(ANSWER_INSTRUCTIONS, `Summaries:\n${summaries.join('\n\n')}`);
  const reservation = promptTokens(messages) + run.bounds.answerTokensMaximum;
  if (run.millisecondsLeft() <= 0) {
    run.reached.add('time');
    return undefined;
  }
  if (!run.reserve(reservation, 0)) return undefined;
  const deadline = startDeadline(run.millisecondsLeft(), signal);
  try {
    const reply = await model.complete({ messages, maxTokens: run.bounds.answerTokensMaximum, signal: deadline.signal });
    run.settle(reservation, reply.usage.total_tokens);
    return reply.text.trim() === '' ? undefined : reply.text.trim();
  } catch (error) {
    run.settle(reservation, undefined);
    if (signal.aborted) throw error;
    if (deadline.expired) run.reached.add('time');
    return undefined;
  } finally {
    deadline.clear();
  }
}

const CITATION = /\[(\d{1,5}(?:\s*,\s*\d{1,5})*)\]/g;

/** The passages' numbers a text cites, known ones only, in order. */
function citedNumbers(text: string, known: ReadonlySet<number>): number[] {
  const cited = new Set<number>();
  for (const match of text.matchAll(CITATION))
    for (const number of match[1]!.split(',').map((part) => Number(part.trim()))) if (known.has(number)) cited.add(number);
  return [...cited].sort((a, b) => a - b);
}

/** The text with each citation renumbered as its passage is numbered among the answer's sources; unknown numbers dropped. */
function renumbered(text: string, numbering: ReadonlyMap<number, number>): string {
  return text.replace(CITATION, (_, numbers: string) => {
    const kept = numbers
      .split(',')
      .map((part) => numbering.get(Number(part.trim())))
      .filter((number): number is number => number !== undefined);
    return kept.length === 0 ? '' : `[${kept.join(', ')}]`;
  });
}

interface Finding {
  /** The answer, or the summaries when a bound left no answer. */
  text: string;
  header: string;
  /** Every passage the analysis read, by its number. */
  read: ReadonlyMap<number, KnowledgeHit>;
}

/** The result: the passages the text cites become its sources (every passage read, when it cites none), numbered on. */
function output(finding: Finding, stats: Record<string, unknown>): ToolOutput {
  const cited = citedNumbers(finding.text, new Set(finding.read.keys()));
  const used = cited.length > 0 ? cited : [...finding.read.keys()];
  const sources: Source[] = used.map((number) => sourceOfHit(finding.read.get(number)!));
  const numbered = (firstNumber: number): string => {
    const numbering = new Map(used.map((number, position) => [number, firstNumber + position]));
    const list = used.map((number, position) => `[${firstNumber + position}] ${sourceOfHit(finding.read.get(number)!).title}`).join('\n');
    return `${finding.header}\n\n${renumbered(finding.text, numbering)}\n\nPassages cited:\n${list}`;
  };
  return { content: numbered(1), numberedContent: numbered, sources, metadata: stats };
}

function header(run: AnalysisRun, gathered: number, summarised: number, batches: number): string {
  const lines = [`Deep analysis of ${gathered} passages: ${summarised} of ${batches} batches summarised.`];
  for (const bound of run.reached) lines.push(`Stopped early at ${BOUND_WORDS[bound]}.`);
  return lines.join('\n');
}

async function gather(run: AnalysisRun, context: ToolContext, config: Config): Promise<KnowledgeHit[]> {
  run.status('gather', 'running', `gathering up to ${run.bounds.passages} passages`);
  // One more than the bound tells whether the bound left passages out.
  const hits = await searchCollections(context, {
    collections: config.collections,
    query: run.question,
    topK: run.bounds.passages + 1,
    threshold: config.threshold,
  });
  if (hits.length > run.bounds.passages) run.reached.add('passages');
  const kept = hits.slice(0, run.bounds.passages);
  run.status('gather', 'done', `gathered ${kept.length} passages`);
  return kept;
}

async function analyse(question: string, context: ToolContext, config: Config): Promise<ToolOutput> {
  const run = new AnalysisRun(question, boundsOf(context.models.deepAnalysis, config), context);
  const hits = await gather(run, context, config);
  if (hits.length === 0) return { content: 'No passages matched this question.' };
  const allBatches = batchesOf(hits, run.bounds.batchPassages);
  if (allBatches.length > run.bounds.batchesMaximum) run.reached.add('batches');
  const batches = allBatches.slice(0, run.bounds.batchesMaximum);
  const smallFast = await context.models.smallFast();
  const summariser = smallFast ?? context.models.assistant;
  run.status(
    'summarise',
    'running',
    `summarising ${batches.length} batches with ${summariser.name}${smallFast === undefined ? " (no small fast model is set: the assistant's model)" : ''}`,
  );
  const summaries = await summarise(run, summariser, batches, context.signal);
  run.status('summarise', summaries.length > 0 ? 'done' : 'error', `summarised ${run.summarisedBatches} of ${batches.length} batches`);
  const read = new Map(batches.flatMap((batch) => batch.numbers).map((number) => [number, hits[number - 1]!]));
  let text: string | undefined;
  if (summaries.length > 0) {
    run.status('answer', 'running', `answering from ${summaries.length} summaries with ${context.models.assistant.name}`);
    text = await answer(run, context.models.assistant, summaries, context.signal);
    run.status(
      'answer',
      text === undefined ? 'error' : 'done',
      text === undefined ? 'no answer: the summaries are given instead' : 'answered',
    );
  }
  if (run.reached.size > 0) run.status('bounds', 'done', `stopped early at the ${[...run.reached].join(', ')} bound`);
  const stats = { passages: hits.length, batches: batches.length, calls: run.calls, tokens: run.tokens, reached: [...run.reached] };
  const finding: Finding = {
    text: text ?? (summaries.length > 0 ? summaries.join('\n\n') : 'No summary could be made within the bounds.'),
    header: header(run, hits.length, run.summarisedBatches, batches.length),
    // Without a summary no passage was used: nothing is listed.
    read: summaries.length > 0 ? read : new Map(),
  };
  return output(finding, stats);
}

export default defineTool({
  name: 'deep_analysis',
  displayName: 'Deep analysis',
  description:
    'Lets the model analyse many passages of the configured knowledge bases at once: summarised in batches by the small fast model, answered with citations.',
  category: 'rag',
  version: '1.0',
  configSchema,
  traceInput: (config) => ({ collections: config.collections, passages: config.passages, batch_size: config.batch_size }),
  function: {
    describe: () => ({
      name: 'deep_analysis',
      description:
        "Reads many passages of the course's knowledge base (not just the top few), summarises them and answers the question with numbered citations. " +
        'Slower than search_knowledge_base: use it for questions that need an overview of much of the material (compare, list all, trace a theme).',
    }),
    parameters: {
      type: 'object',
      additionalProperties: false,
      required: ['question'],
      properties: {
        question: {
          type: 'string',
          minLength: 1,
          maxLength: QUESTION_CHARACTERS_MAXIMUM,
          description: 'The question to analyse, complete in itself.',
        },
      },
    } as const,
    call: (argumentsFromModel, context, config) => analyse(argumentsFromModel.question, context, config),
  },
});

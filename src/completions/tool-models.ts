/**
 * The models a tool may call beside the run's own (the ToolModels port): the organization's small
 * fast model and the assistant's own model, each call whole (not streamed), bounded by the upstream
 * timeout and counted as a usage row of its own for the request's person and assistant, as query
 * rewrites are (docs/usage.md). deep_analysis is their user (docs/deep-analysis.md), and graph
 * extraction in ingestion uses the small fast model alone (docs/graph-search.md).
 */
import type { Settings } from '../config/settings.js';
import type { ConnectorDefinition, ProviderSettings } from '../pipeline/plugin-contract/connector-definition.js';
import type { DeepAnalysisBounds, TextModel, TextModelAnswer, TextModelRequest, ToolModels } from '../pipeline/plugin-contract/ports.js';
import { NO_USAGE, type Usage } from '../pipeline/conversation/events.js';
import { messageText } from '../pipeline/conversation/messages.js';
import { estimateTokens } from '../pipeline/upstream/upstream-errors.js';
import type { Registries } from '../pipeline/plugin-loading/registries.js';
import type { ProviderSettingsService } from '../organizations/provider-settings-service.js';
import { nowTimestamp } from '../store/schema.js';
import type { RunRecordWriter } from './run-record-writer.js';

/** What one model call beside the run's own is counted as. */
export interface ModelCallRecord {
  connector: string;
  model: string;
  usage: Usage;
  durationMilliseconds: number;
  outcome: string;
}

export interface ToolModelsOptions {
  settings: Settings;
  connectorFor: (connectorName: string) => ConnectorDefinition | undefined;
  providerFor: (connectorName: string) => ProviderSettings;
  smallFastModel: () => Promise<{ connector: string; model: string } | undefined>;
  assistantModel: { connector: string; model: string };
  /** Keeps the usage row of one call; never fails the call. */
  count: (call: ModelCallRecord) => Promise<void>;
}

/** What the provider did not report, estimated from the text, so a bound on tokens still holds. */
function estimatedUsage(request: TextModelRequest, text: string): Usage {
  const prompt = estimateTokens(request.messages.map((message) => messageText(message.content)).join('\n'));
  const completion = estimateTokens(text);
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

function textModel(connector: ConnectorDefinition, model: string, options: Omit<ToolModelsOptions, 'assistantModel'>): TextModel {
  const provider = options.providerFor(connector.name);
  return {
    name: `${connector.name}/${model}`,
    async complete(request): Promise<TextModelAnswer> {
      const started = performance.now();
      let text = '';
      let usage: Usage | undefined;
      let outcome = 'failed:tool_model';
      try {
        const events = connector.complete({
          model,
          messages: request.messages,
          parameters: { temperature: 0, max_tokens: request.maxTokens },
          provider,
          signal: request.signal,
          timeoutMilliseconds: options.settings.upstreamTimeoutMilliseconds,
          wholeAnswer: true,
        });
        for await (const event of events) {
          if (event.type === 'text-delta') text += event.text;
          else if (event.type === 'usage') usage = event.usage;
        }
        outcome = 'completed';
        return { text, usage: usage ?? estimatedUsage(request, text) };
      } finally {
        await options.count({
          connector: connector.name,
          model,
          usage: usage ?? NO_USAGE,
          durationMilliseconds: Math.round(performance.now() - started),
          outcome,
        });
      }
    },
  };
}

function deepAnalysisBounds(settings: Settings): DeepAnalysisBounds {
  return {
    passages: settings.deepAnalysisPassages,
    passagesMaximum: settings.deepAnalysisPassagesMaximum,
    batchPassages: settings.deepAnalysisBatchPassages,
    batchesMaximum: settings.deepAnalysisBatchesMaximum,
    parallelBatches: settings.deepAnalysisParallelBatches,
    tokensMaximum: settings.deepAnalysisTokensMaximum,
    milliseconds: settings.deepAnalysisMilliseconds,
    summaryTokensMaximum: settings.deepAnalysisSummaryTokensMaximum,
    answerTokensMaximum: settings.deepAnalysisAnswerTokensMaximum,
  };
}

/** A model nobody can call: an assistant whose connector is not installed fails before any tool runs. */
function missingModel(name: string): TextModel {
  return {
    name,
    complete: () => Promise.reject(new Error(`connector of ${name} is not installed`)),
  };
}

export function toolModelsFor(options: ToolModelsOptions): ToolModels {
  const { connectorFor, assistantModel } = options;
  const assistantConnector = connectorFor(assistantModel.connector);
  return {
    async smallFast() {
      const choice = await options.smallFastModel();
      const connector = choice === undefined ? undefined : connectorFor(choice.connector);
      return choice === undefined || connector === undefined ? undefined : textModel(connector, choice.model, options);
    },
    assistant:
      assistantConnector === undefined
        ? missingModel(`${assistantModel.connector}/${assistantModel.model}`)
        : textModel(assistantConnector, assistantModel.model, options),
    deepAnalysis: deepAnalysisBounds(options.settings),
  };
}

/** What the small fast model of uploads is reached through. */
export interface UploadModelDependencies {
  settings: Settings;
  registries: Registries;
  providerSettings: Pick<ProviderSettingsService, 'providersFor' | 'smallFastModelFor'>;
  runRecords: RunRecordWriter;
}

/**
 * The organization's small fast model alone, for work outside a chat: the entity-graph stage of
 * ingestion (docs/graph-search.md). Undefined when it names none or its connector is not installed.
 * Each call is a usage row of the uploader's, with no assistant, as an upload's embeddings are.
 */
export function smallFastModelForUploads(dependencies: UploadModelDependencies) {
  const { settings, registries, providerSettings, runRecords } = dependencies;
  return async (organizationId: number, userId: number): Promise<TextModel | undefined> => {
    const choice = await providerSettings.smallFastModelFor(organizationId);
    const connector = choice === undefined ? undefined : registries.connectors.get(choice.connector);
    if (choice === undefined || connector === undefined) return undefined;
    return textModel(connector, choice.model, {
      settings,
      connectorFor: (name) => registries.connectors.get(name),
      providerFor: await providerSettings.providersFor(organizationId),
      smallFastModel: () => Promise.resolve(choice),
      count: (call) =>
        runRecords
          .write({
            usage: {
              created_at: nowTimestamp(),
              organization_id: organizationId,
              user_id: userId,
              assistant_id: 0,
              connector: call.connector,
              model: call.model,
              prompt_tokens: call.usage.prompt_tokens,
              completion_tokens: call.usage.completion_tokens,
              total_tokens: call.usage.total_tokens,
              duration_ms: call.durationMilliseconds,
              outcome: call.outcome,
              request_id: null,
              traffic: null,
            },
          })
          .catch(() => undefined),
    });
  };
}

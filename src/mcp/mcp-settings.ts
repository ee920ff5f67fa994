/**
 * Which settings bound MCP, in both directions: Merino's own MCP server (`/mcp`) and an
 * organization's MCP servers used as tools. Kept here so that services.ts only wires them.
 */
import type { Settings } from '../config/settings.js';
import type { McpServerServiceOptions } from '../organizations/mcp-server-service.js';
import type { McpServiceDependencies } from './mcp-service.js';

export function mcpServerLimitsOf(settings: Settings): Pick<McpServiceDependencies, 'limits' | 'sessionLimits'> {
  return {
    sessionLimits: {
      idleMilliseconds: settings.mcpSessionIdleMilliseconds,
      perCredentialMaximum: settings.mcpSessionsPerCredentialMaximum,
    },
    limits: {
      questionCharactersMaximum: settings.mcpQuestionCharactersMaximum,
      conversationMessagesMaximum: settings.mcpConversationMessagesMaximum,
    },
  };
}

type McpToolLimits = Omit<McpServerServiceOptions, 'db' | 'secrets' | 'outbound'>;

export function mcpToolLimitsOf(settings: Settings): McpToolLimits {
  return {
    listTimeoutMilliseconds: settings.mcpToolListTimeoutMilliseconds,
    listCacheMilliseconds: settings.mcpToolListCacheMilliseconds,
    toolsPerServerMaximum: settings.mcpToolsPerServerMaximum,
    callTimeoutMilliseconds: settings.toolCallTimeoutMillisecondsMaximum,
    entriesMaximum: settings.hotReadCacheEntriesMaximum,
  };
}

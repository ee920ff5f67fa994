/**
 * The filters of the chat list, as a JSON Schema fragment: the route adds them to its page query
 * and shows them in the OpenAPI document, and chat-service.ts reads its input type from them.
 */
export const chatListFilters = {
  assistant_id: { type: 'integer', minimum: 1, maximum: 2_147_483_647, description: 'only the chats with this assistant' },
} as const;

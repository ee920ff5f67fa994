// English strings of the studio's additions: the Try it panel, shared knowledge bases, and plain names for internal ones.
export const studio = {
  tryItTitle: 'Try it',
  tryItIntro: 'Chat with the saved assistant to see how it answers. This trial is not kept and does not appear among your chats.',
  tryItUnsaved: 'You have unsaved changes. Try it uses the saved version of this assistant until you save.',
  tryItClear: 'Clear the trial',
  tryItYou: 'You: ',
  sharedKnowledgeBases: 'Knowledge bases of this assistant',
  sharedKnowledgeBasesHint:
    'Tick a knowledge base once: every tool that searches knowledge bases uses these, unless you choose for a tool below.',
  useShared: 'Use the knowledge bases of this assistant',
  pickKnowledgeBase: 'Pick at least one knowledge base',
  processor_simple_augment: 'Fill the template with what was found',
  processor_multi_augment: 'Each tool fills its own placeholder',
  processor_moodle_augment: 'Also fill in the Moodle user',
  tool_simple_rag: 'Knowledge base passages',
  tool_no_rag: 'No knowledge source',
  step_orchestrator: 'Combining what the tools found',
} as const;

// English strings of the assistant form's Model field: the providers' own models and why a provider is unavailable.
export const modelList = {
  hint: 'Grouped by provider: the models each provider serves now, as it lists them.',
  loading: 'Asking the providers which models they serve…',
  loadFailed: 'The list of models could not be loaded. Reload the page to try again.',
  defaultModel: '{{model}} (default)',
  notListed: '{{model}} (not listed by the provider now)',
  unavailableOption: 'Unavailable: {{reason}}',
  unavailable: '{{connector}} is unavailable: {{reason}}',
  reason_no_key: 'no API key is set for this provider.',
  reason_timeout: 'the provider did not answer in time.',
  reason_key_rejected: 'the provider refused the API key.',
  reason_provider_error: 'the provider answered with an error.',
  reason_malformed_answer: 'the provider answered, but not with a list of models.',
  reason_unreachable: 'the provider could not be reached.',
  reason_address_refused: "the provider's address is on an internal network, which is not allowed.",
};

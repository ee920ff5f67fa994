/**
 * "Use in an assistant" on a rubric's page opens /assistants/new?rubric=<rubricId>: a new
 * multi-tool assistant whose only tool is the assessment rubric with that rubric chosen. The
 * prompt template stays blank so the studio writes its default one for the tool ({rubric}, then
 * the learner's input), as it does when a teacher adds the tool by hand.
 */
import { newAssistantValues, type AssistantFormValues } from './assistant-form';

/** The query parameter that names the rubric to start with. */
export const RUBRIC_QUERY_PARAMETER = 'rubric';

/** The rubric a URL asks for, when it names one that could be a rubricId. */
export function preselectedRubricId(url: URL): string | undefined {
  const value = url.searchParams.get(RUBRIC_QUERY_PARAMETER);
  return value !== null && /^[\p{L}\p{N}._:~-]{1,200}$/u.test(value) ? value : undefined;
}

/** A new multi-tool assistant with one enabled rubric_rag tool reading `rubricId`. */
export function valuesWithRubric(rubricId: string): AssistantFormValues {
  const values = newAssistantValues('multi_tool');
  values.metadata.tools = [{ type: 'rubric_rag', enabled: true, config: { rubric_id: rubricId, format: 'markdown' } }];
  return values;
}

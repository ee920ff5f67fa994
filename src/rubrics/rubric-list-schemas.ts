/**
 * The filters of the rubric list, as a JSON Schema fragment: the route adds them to its page query
 * and shows them in the OpenAPI document, and rubric-service.ts reads RubricListInput from them,
 * so the shape of a rubric list request is declared once.
 */
import type { PageQuery } from '../validation/page-query-schema.js';

/** The filters GET /api/rubrics adds to a page. */
export const rubricListFilters = {
  scope: {
    type: 'string',
    enum: ['mine', 'organization'],
    default: 'mine',
    description: "mine: your rubrics; organization: your organization's rubrics you may read",
  },
} as const;

export type RubricListInput = PageQuery<typeof rubricListFilters>;

/**
 * The Model field's data: what each provider serves (GET /api/models), loaded once per page load
 * since the server already keeps it for a while; a failed load is forgotten so the next form asks again.
 */
import { readModelList, type ModelList } from '$lib/api/models';

let loading: Promise<ModelList> | undefined;

export function loadModelList(): Promise<ModelList> {
  loading ??= readModelList().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

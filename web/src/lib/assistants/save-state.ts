/**
 * Where the assistant form stands, as its save bar says it: one state at a time, the most urgent
 * first (a save under way, then the server's refusal, then edits not yet saved).
 */
export type SaveState = 'clean' | 'dirty' | 'saving' | 'saved' | 'created' | 'refused';

export interface SaveFacts {
  busy: boolean;
  refused: boolean;
  dirty: boolean;
  /** Whether this form has saved since it opened (or the page opened on a just-created assistant). */
  saved: boolean;
  created: boolean;
}

export function saveStateOf(facts: SaveFacts): SaveState {
  if (facts.busy) return 'saving';
  if (facts.refused) return 'refused';
  if (facts.dirty) return 'dirty';
  if (facts.saved) return facts.created ? 'created' : 'saved';
  return 'clean';
}

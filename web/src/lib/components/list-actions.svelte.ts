/**
 * What a list page's actions on its items share: one action at a time (`busy`, which the items'
 * buttons honour), what the last action said, and deleting an item only after the reader
 * confirms it. One flow for every list, so each reports a refusal in the server's words and none
 * forgets to clear the last message first.
 */
import { refusalMessage } from './refusal';
import { Confirmation } from './confirmation.svelte';

export interface ListOutcome {
  kind: 'success' | 'error';
  text: string;
}

export class ListActions<Item> {
  busy = $state(false);
  outcome = $state<ListOutcome | undefined>();
  /** The item whose deletion the dialog asks the reader to confirm. */
  readonly deletion = new Confirmation<Item>();

  /**
   * Runs an action (which reads the list again itself when it changed it); its answer is the text
   * of its success, and `refused` words a refusal from the server's reason.
   */
  async run(action: () => Promise<string>, refused: (reason: string) => string): Promise<void> {
    this.busy = true;
    this.outcome = undefined;
    try {
      this.outcome = { kind: 'success', text: await action() };
    } catch (caught) {
      this.outcome = { kind: 'error', text: refused(refusalMessage(caught)) };
    } finally {
      this.busy = false;
    }
  }

  /** Deletes the item the reader confirmed, through `remove`, which answers the text of its success. */
  deleteConfirmed(remove: (item: Item) => Promise<string>, refused: (reason: string) => string): Promise<void> {
    return this.deletion.confirmed((item) => this.run(() => remove(item), refused));
  }
}
